# jaxcc is header-only: one release configuration, nothing under lib/ or debug/.
set(VCPKG_BUILD_TYPE release)

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
    # vcpkg's layout: the CMake package in share/jaxcc, jaxcc.pc in share/pkgconfig.
    -DJAXCC_INSTALL_CMAKEDIR=share/jaxcc
    -DJAXCC_INSTALL_PKGCONFIGDIR=share/pkgconfig
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME jaxcc CONFIG_PATH share/jaxcc)
# (vcpkg always has vcpkg_fixup_pkgconfig; offline stand-ins of vcpkg may not.)
if(COMMAND vcpkg_fixup_pkgconfig)
  vcpkg_fixup_pkgconfig()
endif()

file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
