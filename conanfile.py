# Conan 2 recipe for jaxcc, a header-only library: `conan create .` packages
# the headers with jaxcc's own CMake package (jaxccConfig.cmake) and jaxcc.pc,
# as `cmake --install` lays them out. With the option runtime=True the package
# also holds the precompiled runtime, the static library libjaxcc_runtime.a
# (CMake target jaxcc::runtime, cmake/runtime.cmake): it is then a
# static-library package, one binary per configuration.
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
    # runtime: also build and package the precompiled runtime (the rules of
    # jaxcc's primitives compiled once; it only saves compile time). A static
    # library only, so no `shared` option: it holds explicit instantiations
    # of templates that every translation unit including <jaxcc/jaxcc.hpp>
    # declares extern (JAXCC_PRECOMPILED_RUNTIME), and jaxcc's CMake builds
    # it STATIC; a shared one would need exported symbols (dllexport on
    # Windows) that the headers do not declare. No fPIC option either: CMake
    # builds it position-independent always (POSITION_INDEPENDENT_CODE ON).
    options = {"runtime": [True, False]}
    default_options = {"runtime": False}
    exports_sources = "CMakeLists.txt", "cmake/*", "include/*", "LICENSE"
    no_copy_source = True

    def set_version(self):
        header = load(self, os.path.join(self.recipe_folder, "include", "jaxcc", "version.hpp"))
        parts = [re.search(rf"#define JAXCC_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
        self.version = ".".join(parts)

    def layout(self):
        cmake_layout(self, src_folder=".")

    def configure(self):
        # Header-only unless the runtime is built (the index's idiom for
        # libraries with a header_only option, the other way round).
        if self.options.runtime:
            self.package_type = "static-library"

    def requirements(self):
        # The versions jaxcc is built and tested with: Eigen 3.4 (Eigen 5 by
        # its API, see docs/packaging.md), xsimd 8.1 to 14.
        self.requires("eigen/[>=3.4.0 <6]", transitive_headers=True)
        self.requires("xsimd/[>=8.1.0 <15]", transitive_headers=True)

    def package_id(self):
        # Headers only: one package for every configuration. With the runtime,
        # settings and the option stay: a library per configuration.
        if not self.info.options.runtime:
            self.info.clear()

    def validate(self):
        check_min_cppstd(self, 20)

    def generate(self):
        tc = CMakeToolchain(self)
        tc.cache_variables["JAXCC_BUILD_TESTS"] = False
        tc.cache_variables["JAXCC_BUILD_EXAMPLES"] = False
        tc.cache_variables["JAXCC_BUILD_BENCH"] = False
        if self.options.runtime:
            tc.cache_variables["JAXCC_BUILD_RUNTIME"] = True
            # The compiler's default target, not -march=native (the default
            # of jaxcc's own builds): a package is built for other machines.
            tc.cache_variables["JAXCC_MARCH"] = ""
        tc.generate()
        # CMakeDeps only when Eigen and xsimd are packages; platform_requires
        # leave find_package to the system's configs.
        CMakeDeps(self).generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        if self.options.runtime:
            cmake.build()

    def package(self):
        copy(self, "LICENSE", self.source_folder, os.path.join(self.package_folder, "licenses"))
        cmake = CMake(self)
        cmake.install()

    def package_info(self):
        # jaxcc's own CMake package, not one CMakeDeps writes: it finds Eigen3,
        # xsimd and OpenMP as the library's CMake build does, and defines
        # jaxcc::jaxcc, jaxcc::testing and (runtime=True) jaxcc::runtime.
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.set_property("cmake_file_name", "jaxcc")
        self.cpp_info.set_property("pkg_config_name", "jaxcc")
        if not self.options.runtime:
            self.cpp_info.set_property("cmake_target_name", "jaxcc::jaxcc")
            self._headers_info(self.cpp_info)
            return
        # With the runtime: two components, as the CMake package's targets.
        # Generators other than CMake's get both (the library and its define);
        # CMake consumers pick jaxcc::jaxcc or jaxcc::runtime from the CMake
        # package (the headers component's builddirs lead to it).
        headers = self.cpp_info.components["headers"]
        headers.set_property("cmake_target_name", "jaxcc::jaxcc")
        headers.set_property("pkg_config_name", "jaxcc-headers")
        headers.requires = ["eigen::eigen", "xsimd::xsimd"]
        self._headers_info(headers)
        runtime = self.cpp_info.components["runtime"]
        runtime.set_property("cmake_target_name", "jaxcc::runtime")
        runtime.set_property("pkg_config_name", "jaxcc-runtime")
        runtime.requires = ["headers"]
        runtime.libs = ["jaxcc_runtime"]
        runtime.defines = ["JAXCC_PRECOMPILED_RUNTIME"]
        runtime.bindirs = []

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
