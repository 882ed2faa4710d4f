"""Tools a model may propose (LLMCP `tools`): their executors and the evaluators behind them."""
