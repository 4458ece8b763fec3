"""The evaluators harness: gold sets, metrics, reports (SPEC 7)."""
