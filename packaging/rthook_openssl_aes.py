"""PyInstaller runtime hook: the part of `cryptography` the Linux keyring uses, from OpenSSL.

keyring stores a secret on Linux through secretstorage, which encrypts it for the Secret
Service with AES-CBC using four names of the `cryptography` package: `default_backend`,
`Cipher`, `algorithms.AES` and `modes.CBC` (an encryptor or decryptor: update, finalize). That
package weighs 11.6 MB in the bundle (its Rust library carries a whole OpenSSL of its own),
while the bundle already ships OpenSSL's libcrypto for Python's hashlib and ssl. build.spec
leaves `cryptography` out; this hook answers its imports with those four names, done by
libcrypto's EVP cipher functions through ctypes. A finder appended to sys.meta_path only answers
when no real module was found first; any other name of the package raises an AttributeError
that says why. tests/test_openssl_aes.py checks it against the real package and secretstorage.
"""

import ctypes
import importlib.abc
import importlib.machinery
import sys
import types

_WHY = "only AES-CBC of `cryptography` is in the packaged Attention Workbench (build.spec)"
_PACKAGES = (
    "cryptography",
    "cryptography.hazmat",
    "cryptography.hazmat.backends",
    "cryptography.hazmat.primitives",
    "cryptography.hazmat.primitives.ciphers",
)
_MODULES = (
    "cryptography.hazmat.primitives.ciphers.algorithms",
    "cryptography.hazmat.primitives.ciphers.modes",
)
_lib = None


def libcrypto():
    """OpenSSL's libcrypto, the one Python's hashlib loaded (the bundle's own)."""
    global _lib
    if _lib is None:
        import _hashlib  # noqa: F401 - loads libcrypto into the process first

        c_int, c_void_p, c_char_p = ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p
        out_len = ctypes.POINTER(c_int)
        lib = ctypes.CDLL("libcrypto.so.3")
        for name in ("EVP_aes_128_cbc", "EVP_aes_192_cbc", "EVP_aes_256_cbc"):
            getattr(lib, name).restype = c_void_p
            getattr(lib, name).argtypes = []
        lib.EVP_CIPHER_CTX_new.restype = c_void_p
        lib.EVP_CIPHER_CTX_new.argtypes = []
        lib.EVP_CIPHER_CTX_free.restype = None
        lib.EVP_CIPHER_CTX_free.argtypes = [c_void_p]
        lib.EVP_CipherInit_ex.argtypes = [c_void_p, c_void_p, c_void_p, c_char_p, c_char_p, c_int]
        lib.EVP_CIPHER_CTX_set_padding.argtypes = [c_void_p, c_int]
        lib.EVP_CipherUpdate.argtypes = [c_void_p, c_char_p, out_len, c_char_p, c_int]
        lib.EVP_CipherFinal_ex.argtypes = [c_void_p, c_char_p, out_len]
        _lib = lib
    return _lib


def default_backend():
    return None  # OpenSSL's libcrypto is the only backend


class AES:
    name = "AES"
    block_size = 128

    def __init__(self, key: bytes) -> None:
        if len(key) not in (16, 24, 32):
            raise ValueError(f"Invalid key size ({len(key) * 8}) for AES.")
        self.key = bytes(key)
        self.key_size = len(key) * 8


class CBC:
    name = "CBC"

    def __init__(self, initialization_vector: bytes) -> None:
        if len(initialization_vector) != 16:
            raise ValueError(f"Invalid IV size ({len(initialization_vector)}) for CBC.")
        self.initialization_vector = bytes(initialization_vector)


class _Context:
    """One encryption or decryption, without padding (the caller pads, as secretstorage does)."""

    def __init__(self, algorithm: AES, mode: CBC, encrypt: bool) -> None:
        lib = libcrypto()
        cipher = getattr(lib, f"EVP_aes_{algorithm.key_size}_cbc")()
        self._ctx = lib.EVP_CIPHER_CTX_new()
        if not self._ctx:
            raise MemoryError("EVP_CIPHER_CTX_new failed")
        key, iv = algorithm.key, mode.initialization_vector
        if lib.EVP_CipherInit_ex(self._ctx, cipher, None, key, iv, int(encrypt)) != 1:
            self._free()
            raise ValueError("OpenSSL refused the AES key or IV")
        lib.EVP_CIPHER_CTX_set_padding(self._ctx, 0)

    def update(self, data: bytes) -> bytes:
        if not self._ctx:
            raise ValueError("Context was already finalized.")
        data = bytes(data)
        out, written = ctypes.create_string_buffer(len(data) + 16), ctypes.c_int(0)
        if libcrypto().EVP_CipherUpdate(self._ctx, out, written, data, len(data)) != 1:
            raise ValueError("AES-CBC update failed")
        return out.raw[: written.value]

    def finalize(self) -> bytes:
        if not self._ctx:
            raise ValueError("Context was already finalized.")
        out, written = ctypes.create_string_buffer(16), ctypes.c_int(0)
        done = libcrypto().EVP_CipherFinal_ex(self._ctx, out, written)
        self._free()
        if done != 1:
            raise ValueError(
                "The length of the provided data is not a multiple of the block length."
            )
        return out.raw[: written.value]

    def _free(self) -> None:
        if self._ctx:
            libcrypto().EVP_CIPHER_CTX_free(self._ctx)
            self._ctx = None

    def __del__(self) -> None:
        self._free()


class Cipher:
    def __init__(self, algorithm: AES, mode: CBC, backend=None) -> None:
        if not isinstance(algorithm, AES) or not isinstance(mode, CBC):
            raise TypeError(_WHY)
        self.algorithm, self.mode = algorithm, mode

    def encryptor(self) -> _Context:
        return _Context(self.algorithm, self.mode, encrypt=True)

    def decryptor(self) -> _Context:
        return _Context(self.algorithm, self.mode, encrypt=False)


_CONTENTS = {
    "cryptography.hazmat.backends": {"default_backend": default_backend},
    "cryptography.hazmat.primitives.ciphers": {"Cipher": Cipher},
    "cryptography.hazmat.primitives.ciphers.algorithms": {"AES": AES},
    "cryptography.hazmat.primitives.ciphers.modes": {"CBC": CBC},
}


class _Partial(types.ModuleType):
    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"{self.__name__}.{name}: {_WHY}")


class StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in _PACKAGES or fullname in _MODULES:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname in _PACKAGES)
        return None

    def create_module(self, spec):
        return _Partial(spec.name)

    def exec_module(self, module):
        if module.__name__ in _PACKAGES:
            module.__path__ = []
        for name, value in _CONTENTS.get(module.__name__, {}).items():
            setattr(module, name, value)
        if module.__name__ == "cryptography.hazmat.primitives.ciphers":
            from cryptography.hazmat.primitives.ciphers import algorithms, modes

            module.algorithms, module.modes = algorithms, modes


if sys.platform.startswith("linux"):
    sys.meta_path.append(StandInFinder())
