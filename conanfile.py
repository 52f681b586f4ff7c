# Conan 2 recipe for jaxcc: `conan create .` packages the headers with
# jaxcc's own CMake package (jaxccConfig.cmake) and jaxcc.pc, as
# `cmake --install` lays them out: by default with the precompiled runtime,
# the static library libjaxcc_runtime.a (cmake/runtime.cmake): a
# static-library package, one binary per configuration, whose jaxcc::jaxcc
# links the runtime (built for the architecture's baseline, its hot kernels
# dispatched to the CPU's best level; code of any -march links it:
# docs/packaging.md). With header_only=True a header-library package, one
# binary for all configurations, whose jaxcc::jaxcc is the headers.
#
# Consumers find it with find_package(jaxcc CONFIG) through that CMake package
# (cmake_find_mode "none" + builddirs), which finds Eigen3, xsimd and OpenMP
# itself: from CMakeDeps' files when Eigen and xsimd are Conan packages, or
# from the system when a profile declares them in [platform_requires].
# OpenMP has no Conan package: it comes as compiler flags (the CMake package
# links OpenMP::OpenMP_CXX; other generators get cpp_info's flags).
import os
import re
import sys

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
    package_type = "static-library"
    settings = "os", "arch", "compiler", "build_type"
    # header_only: the headers alone, no precompiled runtime (it only saves
    # compile time: the rules of jaxcc's primitives compiled once). The
    # runtime is a static library only, so no `shared` option: it holds
    # explicit instantiations of templates that every translation unit
    # including <jaxcc/jaxcc.hpp> declares extern (JAXCC_PRECOMPILED_RUNTIME),
    # and jaxcc's CMake builds it STATIC; a shared one would need exported
    # symbols (dllexport on Windows) that the headers do not declare. No fPIC
    # option either: CMake builds it position-independent always
    # (POSITION_INDEPENDENT_CODE ON).
    options = {"header_only": [True, False]}
    default_options = {"header_only": False}
    exports_sources = ("CMakeLists.txt", "cmake/*", "include/*", "tools/generate_runtime_instances.py",
                       "tools/privatize_runtime.py", "LICENSE")
    no_copy_source = True

    def set_version(self):
        header = load(self, os.path.join(self.recipe_folder, "include", "jaxcc", "version.hpp"))
        parts = [re.search(rf"#define JAXCC_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def layout(self):
        cmake_layout(self, src_folder=".")

    def configure(self):
        # The index's idiom for libraries with a header_only option.
        if self.options.header_only:
            self.package_type = "header-library"

    def requirements(self):
        # The versions jaxcc is built and tested with: Eigen 3.4 (Eigen 5 by
        # its API, see docs/packaging.md), xsimd 8.1 to 14.
        self.requires("eigen/[>=3.4.0 <6]", transitive_headers=True)
        self.requires("xsimd/[>=8.1.0 <15]", transitive_headers=True)

    def package_id(self):
        # Headers only: one package for every configuration. With the runtime,
        # settings stay: a library per configuration.
        if self.info.options.header_only:
            self.info.clear()

    def validate(self):
        check_min_cppstd(self, 20)

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["JAXCC_BUILD_TESTS"] = False
        tc.cache_variables["JAXCC_BUILD_EXAMPLES"] = False
        tc.cache_variables["JAXCC_BUILD_BENCH"] = False
        tc.cache_variables["JAXCC_BUILD_RUNTIME"] = not self.options.header_only
        # The compiler's default target, not -march=native (the default of
        # jaxcc's own builds): a package is built for other machines.
        tc.cache_variables["JAXCC_MARCH"] = ""
        # The runtime's instance list is generated at configure time by
        # Python 3: the one running Conan, unless Conan is a frozen
        # executable (its installers), where CMake looks for python3 itself.
        if not self.options.header_only and not getattr(sys, "frozen", False):
            tc.cache_variables["Python3_EXECUTABLE"] = sys.executable.replace("\\", "/")
        tc.generate()
        # CMakeDeps only when Eigen and xsimd are packages; platform_requires
        # leave find_package to the system's configs.
        CMakeDeps(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        if not self.options.header_only:
            cmake.build()

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        cmake = CMake(self)
        cmake.install()

    def package_info(self):
        # jaxcc's own CMake package, not one CMakeDeps writes: it finds Eigen3,
        # xsimd and OpenMP as the library's CMake build does, and defines
        # jaxcc::jaxcc (the runtime's library, or the headers alone with
        # header_only=True), jaxcc::header_only and jaxcc::testing. Generators
        # other than CMake's get what jaxcc::jaxcc links: the headers, and by
        # default the library and its define.
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.set_property("cmake_file_name", "jaxcc")
        self.cpp_info.set_property("cmake_target_name", "jaxcc::jaxcc")
        self.cpp_info.set_property("pkg_config_name", "jaxcc")
        self._headers_info(self.cpp_info)
        if not self.options.header_only:
            self.cpp_info.libdirs = ["lib"]
            self.cpp_info.libs = ["jaxcc_runtime"]
            self.cpp_info.defines = ["JAXCC_PRECOMPILED_RUNTIME"]

    def _headers_info(self, info):
        info.bindirs = []
        info.libdirs = []
        info.builddirs = [os.path.join("share", "cmake", "jaxcc")]
        # OpenMP, for the generators other than CMake's (pkg-config, Make,
        # Meson...). GCC and Clang on Linux: -fopenmp (Clang needs libomp).
        compiler = str(self.settings.compiler)
        if compiler == "msvc":
            info.cxxflags = ["/openmp"]
        elif compiler == "apple-clang":
            info.cxxflags = ["-Xpreprocessor", "-fopenmp"]
            info.system_libs = ["omp"]
        else:
            info.cxxflags = ["-fopenmp"]
            info.sharedlinkflags = ["-fopenmp"]
            info.exelinkflags = ["-fopenmp"]
