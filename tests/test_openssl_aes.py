"""The packaged app's stand-in for `cryptography` (packaging/rthook_openssl_aes.py, issue 31).

The bundle leaves the 11.6 MB `cryptography` package out; the keyring's Secret Service path
(secretstorage) gets AES-CBC from OpenSSL's libcrypto instead. Checked here against a published
test vector, against the real package, and through secretstorage's own encryption code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the stand-in is for the Linux keyring"
)

HOOK = Path(__file__).resolve().parent.parent / "packaging" / "rthook_openssl_aes.py"


def stand_in():
    """The hook's module, loaded apart from the real `cryptography` (which stays first)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rthook_openssl_aes", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.meta_path.remove(next(f for f in sys.meta_path if isinstance(f, module.StandInFinder)))
    return module


def test_the_nist_cbc_vector_is_met() -> None:
    """NIST SP 800-38A, F.2.1 (CBC-AES128.Encrypt), first two blocks, and back."""
    aes = stand_in()
    key = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
    iv = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
    plain = bytes.fromhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
    sealed = bytes.fromhex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2")
    cipher = aes.Cipher(aes.AES(key), aes.CBC(iv), aes.default_backend())
    encryptor = cipher.encryptor()
    assert (
        encryptor.update(plain[:7]) + encryptor.update(plain[7:]) + encryptor.finalize() == sealed
    )
    decryptor = cipher.decryptor()
    assert decryptor.update(sealed) + decryptor.finalize() == plain


def test_it_agrees_with_cryptography_and_refuses_what_it_refuses() -> None:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    aes = stand_in()
    for key_bytes in (16, 24, 32):
        for blocks in (1, 3, 17):
            key, iv, data = os.urandom(key_bytes), os.urandom(16), os.urandom(16 * blocks)
            real = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
            ours = aes.Cipher(aes.AES(key), aes.CBC(iv)).encryptor()
            assert ours.update(data) + ours.finalize() == real.update(data) + real.finalize()
    with pytest.raises(ValueError, match="key size"):
        aes.AES(b"short")
    with pytest.raises(ValueError, match="IV size"):
        aes.CBC(b"short")
    partial = aes.Cipher(aes.AES(bytes(16)), aes.CBC(bytes(16))).encryptor()
    partial.update(b"not a whole block")
    with pytest.raises(ValueError, match="multiple of the block length"):
        partial.finalize()


# secretstorage's own code on the stand-in: the hook's finder first, the real package hidden.
THROUGH_SECRETSTORAGE = """
import runpy, sys
runpy.run_path(sys.argv[1])
finder = sys.meta_path.pop()
sys.meta_path.insert(0, finder)
from secretstorage.dhcrypto import Session
from secretstorage.util import format_secret
import cryptography.hazmat.primitives.ciphers as ciphers
assert type(ciphers).__name__ == "_Partial", type(ciphers)
session = Session()
session.object_path = "/org/freedesktop/secrets/session/1"
session.set_server_public_key(pow(2, 1234567, 2**1024 - 2**960 - 1))  # any public key
_path, iv, sealed, _type = format_secret(session, b"sk-canary", "text/plain")
sys.stdout.write(session.aes_key.hex() + " " + bytes(iv).hex() + " " + bytes(sealed).hex())
"""


def test_secretstorage_encrypts_a_secret_through_it() -> None:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    done = subprocess.run(
        [sys.executable, "-c", THROUGH_SECRETSTORAGE, str(HOOK)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    key, iv, sealed = (bytes.fromhex(part) for part in done.stdout.split())
    opened = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    padded = opened.update(sealed) + opened.finalize()
    assert padded == b"sk-canary" + bytes([7]) * 7  # PKCS#7, as secretstorage pads
