"""One module pair per feature: payload/result models and thin handlers (payload in, service
call, result out), and `routes`, the table of every message type."""
