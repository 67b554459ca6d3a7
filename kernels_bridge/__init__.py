"""The bridge to the decode-attention kernel benchmark; analytic parts are pure Python."""
