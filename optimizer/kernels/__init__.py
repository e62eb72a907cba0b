"""numba kernels. They take plain numpy arrays and integers; Python objects stay outside."""
