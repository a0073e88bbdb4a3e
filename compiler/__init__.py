"""chronoplan.compiler package."""
