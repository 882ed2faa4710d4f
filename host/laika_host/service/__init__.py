"""The user-level operations, each orchestrated once: the CLI, the native handlers (and the
side panel, tools and transforms after them) parse their input, call one function here, and
format what it returns, so the terminal and the browser cannot drift apart.

One module per area, each taking the open `Store` (and an options object where a call has
several) and returning typed records: `capture` (a file, URL, PDF or the page the extension
saw, captured and stored), `ask` (grounded answers and the chat history), `summarize`,
`search`, `collections`, `sources`, `jobs` (the capture queue), `artifacts` (list, show,
export to a file, delete), `models` (which provider answers, and managing them). Defaults
come from `laika_host.defaults`. Errors are the layers' own (store, capture, LLM): each caller
maps them to its exit code or error code.

Imports nothing here, so that importing one area loads only what that area needs.
"""
