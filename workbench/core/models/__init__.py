"""The models the app knows: the catalog and its schema."""
