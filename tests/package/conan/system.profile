# A Conan profile that takes Eigen and xsimd from the system (Debian 12:
# libeigen3-dev 3.4.0, libxsimd-dev 8.1.0) instead of from a remote:
#   conan create . -pr:a tests/package/conan/system.profile -nr --build=missing
# jaxcc's own CMake package then finds them with find_package, as it does
# without Conan.
include(default)

[settings]
compiler.cppstd=20

[platform_requires]
eigen/3.4.0
xsimd/8.1.0
