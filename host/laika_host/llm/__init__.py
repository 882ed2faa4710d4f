"""Model runtimes: one chat contract (spec 003) for OpenAI, OpenRouter, Anthropic, Ollama
(local and cloud) and OpenAI-compatible servers, with resilient streaming (spec 001).

    client = ChatClient()
    result = await client.complete(provider, ChatRequest(model=..., messages=[...]))

`contract` (request, capabilities, response), `events` (the one stream event type),
`errors` (the error taxonomy), `streams` (SSE and NDJSON lines), `adapters/` (one wire
format each), `client` (timeouts, retries, partial results, structured logs), `config`
(configured providers), `offline` (the built-in extractive runtime), `local_model` (a real
llama-server + SmolLM2 for tests and demos).
"""
