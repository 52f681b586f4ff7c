// jaxcc's version. CMakeLists.txt checks at configure time that these
// numbers are project(jaxcc VERSION ...)'s.
#pragma once

#define JAXCC_VERSION_MAJOR 0
#define JAXCC_VERSION_MINOR 1
#define JAXCC_VERSION_PATCH 0
// One number to compare: 10000 * major + 100 * minor + patch.
#define JAXCC_VERSION (JAXCC_VERSION_MAJOR * 10000 + JAXCC_VERSION_MINOR * 100 + JAXCC_VERSION_PATCH)
