"""chronoplan.validators package."""
