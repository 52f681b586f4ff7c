// One include for Catch2 v2 (Debian 12) and v3; `Catch::Approx` in both.
#pragma once
#if JAXCC_CATCH_V3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
namespace Catch {
using Detail::Approx;
}
#endif
