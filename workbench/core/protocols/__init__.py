"""The wire protocols the client speaks: `base.ClientProtocol`, one module per protocol, and the
registry (registry.py) that everything else reads them from. Empty, so that importing the
base type pulls in no protocol."""
