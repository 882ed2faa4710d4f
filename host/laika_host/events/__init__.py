"""Host events (a source captured, an artifact completed, ...) and the user's event rules,
run deterministically: conditions in code, actions as registry tools through the gate."""
