"""citegate: the command line and the composition root that wires every stage."""
