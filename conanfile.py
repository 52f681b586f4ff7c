# Conan 2 recipe for jaxcc, a header-only library: `conan create .` packages
# the headers with jaxcc's own CMake package (jaxccConfig.cmake) and jaxcc.pc,
# as `cmake --install` lays them out.
#
# Consumers find it with find_package(jaxcc CONFIG) through that CMake package
# (cmake_find_mode "none" + builddirs), which finds Eigen3, xsimd and OpenMP
# itself: from CMakeDeps' files when Eigen and xsimd are Conan packages, or
# from the system when a profile declares them in [platform_requires].
# OpenMP has no Conan package: it comes as compiler flags (the CMake package
# links OpenMP::OpenMP_CXX; other generators get cpp_info's flags).
import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load

required_conan_version = ">=2.0.9"


class JaxccConan(ConanFile):
    name = "jaxcc"
    description = "JAX's composable function transforms for C++20: vmap, grad, jit, sharding"
    license = "Apache-2.0"
    homepage = "https://github.com/jaxcc/jaxcc"
    url = "https://github.com/jaxcc/jaxcc"
    topics = ("autodiff", "jax", "numpy", "simd", "eigen", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = "CMakeLists.txt", "cmake/*", "include/*", "LICENSE"
    no_copy_source = True

    # The precompiled runtime (a shared/static option or component) does not
    # exist yet: everything is in the headers.

    def set_version(self):
        header = load(self, os.path.join(self.recipe_folder, "include", "jaxcc", "version.hpp"))
        parts = [re.search(rf"#define JAXCC_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def layout(self):
        cmake_layout(self, src_folder=".")

    def requirements(self):
        # The versions jaxcc is built and tested with: Eigen 3.4 (Eigen 5 by
        # its API, see docs/packaging.md), xsimd 8.1 to 14.
        self.requires("eigen/[>=3.4.0 <6]", transitive_headers=True)
        self.requires("xsimd/[>=8.1.0 <15]", transitive_headers=True)

    def package_id(self):
        self.info.clear()

    def validate(self):
        check_min_cppstd(self, 20)

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["JAXCC_BUILD_TESTS"] = False
        tc.cache_variables["JAXCC_BUILD_EXAMPLES"] = False
        tc.cache_variables["JAXCC_BUILD_BENCH"] = False
        tc.generate()
        # CMakeDeps only when Eigen and xsimd are packages; platform_requires
        # leave find_package to the system's configs.
        CMakeDeps(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        cmake = CMake(self)
        cmake.install()

    def package_info(self):
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        # jaxcc's own CMake package, not one CMakeDeps writes: it finds Eigen3,
        # xsimd and OpenMP as the library's CMake build does.
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.set_property("cmake_file_name", "jaxcc")
        self.cpp_info.set_property("cmake_target_name", "jaxcc::jaxcc")
        self.cpp_info.builddirs = [os.path.join("share", "cmake", "jaxcc")]
        self.cpp_info.set_property("pkg_config_name", "jaxcc")
        # OpenMP, for the generators other than CMake's (pkg-config, Make,
        # Meson...). GCC and Clang on Linux: -fopenmp (Clang needs libomp).
        compiler = str(self.settings.compiler)
        if compiler == "msvc":
            self.cpp_info.cxxflags = ["/openmp"]
        elif compiler == "apple-clang":
            self.cpp_info.cxxflags = ["-Xpreprocessor", "-fopenmp"]
            self.cpp_info.system_libs = ["omp"]
        else:
            self.cpp_info.cxxflags = ["-fopenmp"]
            self.cpp_info.sharedlinkflags = ["-fopenmp"]
            self.cpp_info.exelinkflags = ["-fopenmp"]
