"""``chronoplan.reward``: reward functions for RL trainers (TRL's GRPOTrainer signature).

Input: a project or ``.chrono`` paths, a shaping, the scenario column.  Output: ``reward_function(...)`` ->
``fn(completions, **kwargs) -> list[float]``.  The implementation is ``chronoplan.validators.reward``.
"""
from chronoplan.validators.reward import Shaping, completion_text, progress_of, reward_function, score

__all__ = ["Shaping", "completion_text", "progress_of", "reward_function", "score"]
