# The default features build the precompiled runtime, a static library
# (libjaxcc_runtime.a; the CMake target jaxcc::jaxcc links it): vcpkg's
# release and debug builds, static only (explicit template instantiations
# that every translation unit declares extern; jaxcc's CMake builds it
# STATIC, and the headers export no symbols for a DLL). Without the feature
# "runtime" (jaxcc[core]) the port is header-only: one release
# configuration, nothing under lib/ or debug/, and jaxcc::jaxcc is the
# headers alone.
# (The offline stand-in CI runs the portfile with has no FEATURES, no
# vcpkg_find_acquire_program and an install step that builds nothing: it
# checks jaxcc[core]. list(FIND), not IN_LIST: the stand-in runs the
# portfile with CMake's old policies, where if(IN_LIST) is an error.)
list(FIND FEATURES runtime JAXCC_RUNTIME_FEATURE)
if(JAXCC_RUNTIME_FEATURE GREATER -1)
  vcpkg_check_linkage(ONLY_STATIC_LIBRARY)
  # The runtime's instance list is generated at configure time by Python 3.
  vcpkg_find_acquire_program(PYTHON3)
  set(FEATURE_OPTIONS -DJAXCC_BUILD_RUNTIME=ON "-DPython3_EXECUTABLE=${PYTHON3}")
  # A library: jaxcc.pc in lib/pkgconfig (share/pkgconfig is for header-only ports).
  set(JAXCC_PKGCONFIGDIR lib/pkgconfig)
else()
  set(VCPKG_BUILD_TYPE release)
  set(FEATURE_OPTIONS -DJAXCC_BUILD_RUNTIME=OFF)
  set(JAXCC_PKGCONFIGDIR share/pkgconfig)
endif()

# As an overlay port inside jaxcc's own repository (vcpkg install
# --overlay-ports=<repo>/ports), the sources are the tree around it; in a
# registry, the release's tag on GitHub.
get_filename_component(JAXCC_LOCAL_TREE "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(EXISTS "${JAXCC_LOCAL_TREE}/include/jaxcc/jaxcc.hpp" AND EXISTS "${JAXCC_LOCAL_TREE}/CMakeLists.txt")
  set(SOURCE_PATH "${JAXCC_LOCAL_TREE}")
else()
  vcpkg_from_github(
    OUT_SOURCE_PATH SOURCE_PATH
    REPO jaxcc/jaxcc
    REF "v${VERSION}"
    SHA512 0 # set by the release: the SHA-512 of the tag's archive
    HEAD_REF main
  )
endif()

vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    -DJAXCC_BUILD_TESTS=OFF
    -DJAXCC_BUILD_EXAMPLES=OFF
    -DJAXCC_BUILD_BENCH=OFF
    ${FEATURE_OPTIONS}
    # The compiler's default target for the runtime, not jaxcc's -march=native.
    -DJAXCC_MARCH=
    # vcpkg's layout: the CMake package in share/jaxcc, jaxcc.pc in
    # share/pkgconfig (lib/pkgconfig with the runtime).
    -DJAXCC_INSTALL_CMAKEDIR=share/jaxcc
    "-DJAXCC_INSTALL_PKGCONFIGDIR=${JAXCC_PKGCONFIGDIR}"
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME jaxcc CONFIG_PATH share/jaxcc)
# (vcpkg always has vcpkg_fixup_pkgconfig; offline stand-ins of vcpkg may not.)
if(COMMAND vcpkg_fixup_pkgconfig)
  vcpkg_fixup_pkgconfig()
endif()
if(JAXCC_RUNTIME_FEATURE GREATER -1)
  # The debug build's headers and CMake package duplicate the release's
  # (vcpkg_cmake_config_fixup has merged its jaxccTargets-debug.cmake).
  file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/debug/include" "${CURRENT_PACKAGES_DIR}/debug/share")
endif()

file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
