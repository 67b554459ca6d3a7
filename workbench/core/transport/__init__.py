"""One request on the wire: clients and connections, the send stamp, the streamed body, SSE, the
chat stream reader the other protocols extend, a stream's limits, error events, a provider's
connection.
"""
