import os
from io import StringIO

from conan import ConanFile
from conan.errors import ConanException
from conan.tools.build import can_run
from conan.tools.cmake import CMake, cmake_layout


class TestPackageConan(ConanFile):
    settings = "os", "arch", "compiler", "build_type"
    generators = "CMakeDeps", "CMakeToolchain"

    def requirements(self):
        self.requires(self.tested_reference_str)

    def layout(self):
        cmake_layout(self)

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def test(self):
        if can_run(self):
            out = StringIO()
            self.run(os.path.join(self.cpp.build.bindir, "test_package"), stdout=out, env="conanrun")
            self.output.info(out.getvalue().rstrip())
            # By default the program must have used the library; with
            # jaxcc/*:header_only=True it must not.
            header_only = bool(self.dependencies[self.tested_reference_str].options.header_only)
            if header_only == ("precompiled runtime: used" in out.getvalue()):
                raise ConanException(f"test_package: jaxcc header_only={header_only}, but the program says otherwise")
