"""The settings registry (issue #17, spec 004): one typed JSON document, `config/registry.json`
in the data directory, changed only through `registry.mutate`, each change one git commit.

Modules: `schema` (the sections), `files` (where, atomic writes, the cross-process lock),
`dotted` (paths into the document), `secrets` (keys are refused), `legacy` (providers.json and
policy.json, migrated once), `history` (the git repository, via dulwich), `registry` (load,
mutate, revert), `watch` (noticing another process's change without a server).
"""
