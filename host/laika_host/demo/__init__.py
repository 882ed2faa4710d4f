"""`laika demo`: a few short pages written for the project, captured into a `Demo`
collection and asked about offline, so a new user sees the whole product in one command."""
