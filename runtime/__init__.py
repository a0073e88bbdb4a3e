"""chronoplan.runtime package."""
