// jaxcc::io::load_safetensors and save_safetensors: Hugging Face's
// .safetensors files (an 8-byte little-endian header length, a JSON header
// of name -> dtype, shape and data_offsets, then the row-major little-endian
// data). Needs nlohmann-json (header-only; the jaxcc::io CMake target).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/io/file.hpp"
#include "jaxcc/io/npy.hpp"

namespace jaxcc::detail {

/// jaxcc's dtypes as safetensors names them.
inline constexpr std::array<std::pair<std::string_view, DType>, 11> safetensors_types{{{"BOOL", DType::bool_},
                                                                                      {"U8", DType::uint8},
                                                                                      {"I8", DType::int8},
                                                                                      {"I16", DType::int16},
                                                                                      {"I32", DType::int32},
                                                                                      {"I64", DType::int64},
                                                                                      {"U32", DType::uint32},
                                                                                      {"F16", DType::float16},
                                                                                      {"BF16", DType::bfloat16},
                                                                                      {"F32", DType::float32},
                                                                                      {"F64", DType::float64}}};

/// The largest header Hugging Face's reader accepts.
inline constexpr std::uint64_t safetensors_max_header = 100'000'000;

/// One tensor's entry of the header, checked against the data's size.
inline AnyArray read_safetensor(InFile const& file, std::string const& key, nlohmann::json const& info,
                                std::uint64_t data_start) {
  auto const& ctx = file.context();
  auto bad = [&](auto const&... what) { io_fail(ctx, "tensor '", key, "': ", what...); };
  if (!info.is_object()) bad("its header entry is not an object");
  auto const dtype_it = info.find("dtype"), shape_it = info.find("shape"), offsets_it = info.find("data_offsets");
  if (dtype_it == info.end() || !dtype_it->is_string()) bad("no dtype");
  auto const dtype_name = dtype_it->get<std::string>();
  auto const type = std::find_if(safetensors_types.begin(), safetensors_types.end(),
                                 [&](auto const& t) { return t.first == dtype_name; });
  if (type == safetensors_types.end())
    bad("dtype '", dtype_name, "' is not one jaxcc has (BOOL, U8, I8, I16, I32, I64, U32, F16, BF16, F32, F64)");
  if (shape_it == info.end() || !shape_it->is_array() || shape_it->size() > 64) bad("no shape (a list of sizes)");
  Shape shape;
  std::uint64_t bytes = item_size(type->second);
  for (auto const& d : *shape_it) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() > std::uint64_t{1} << 62) bad("a size is not a count");
    shape.push_back(static_cast<std::int64_t>(d.get<std::uint64_t>()));
    bytes = io_checked_mul(ctx, bytes, d.get<std::uint64_t>(), "the tensor's size");
  }
  if (offsets_it == info.end() || !offsets_it->is_array() || offsets_it->size() != 2 ||
      !(*offsets_it)[0].is_number_unsigned() || !(*offsets_it)[1].is_number_unsigned())
    bad("no data_offsets (two byte offsets)");
  auto const begin = (*offsets_it)[0].get<std::uint64_t>(), end = (*offsets_it)[1].get<std::uint64_t>();
  if (end < begin || end - begin != bytes)
    bad("data_offsets [", begin, ", ", end, ") hold ", end - begin, " bytes, shape ", to_string(shape), " of ",
        name(type->second), " needs ", bytes);
  if (end > file.size() - data_start)
    io_fail(ctx, "truncated: tensor '", key, "' ends at data byte ", end, ", the data has ", file.size() - data_start);
  auto [array, data] = allocate_any(type->second, shape);
  advise_huge_pages(data, bytes);
  file.read(data, bytes, data_start + begin, "a tensor's data");
  NpyHeader const fix{type->second, std::endian::native == std::endian::big, false, shape, 0, bytes};
  npy_fix_elements(data, fix);
  return array;
}

}  // namespace jaxcc::detail

namespace jaxcc::io {

/// The tensors in the .safetensors file at `path`, by name, at their stored
/// dtypes. (The header's "__metadata__" is checked to be an object of
/// strings, and not returned.)
inline ArrayMap load_safetensors(std::filesystem::path const& path) {
  detail::IoContext const ctx{"jaxcc::io::load_safetensors", path};
  detail::InFile file(ctx);
  unsigned char length[8];
  file.read(length, 8, 0, "the header length");
  auto const header_bytes = detail::load_le<std::uint64_t>(length);
  if (header_bytes > detail::safetensors_max_header)
    detail::io_fail(ctx, "a header of ", header_bytes, " bytes is larger than safetensors allows (100 MB)");
  std::string text(static_cast<std::size_t>(header_bytes), '\0');
  file.read(text.data(), header_bytes, 8, "the header");
  auto const header = nlohmann::json::parse(text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) detail::io_fail(ctx, "the header is not a JSON object");
  ArrayMap out;
  for (auto const& [key, info] : header.items()) {
    if (key == "__metadata__") {
      bool const strings = info.is_object() && std::all_of(info.begin(), info.end(), [](auto const& v) { return v.is_string(); });
      if (!strings) detail::io_fail(ctx, "__metadata__ is not an object of strings");
      continue;
    }
    out.emplace(key, detail::read_safetensor(file, key, info, 8 + header_bytes));
  }
  return out;
}

/// Write the arrays to `path` as Hugging Face's safetensors does: sorted by
/// item size (largest first) then name, contiguous, the header padded with
/// spaces to a multiple of 8 bytes; `metadata` as "__metadata__".
inline void save_safetensors(std::filesystem::path const& path, ArrayMap const& arrays,
                             std::map<std::string, std::string> const& metadata = {}) {
  detail::IoContext const ctx{"jaxcc::io::save_safetensors", path};
  std::vector<std::pair<std::string const*, detail::NpyPayload>> tensors;
  for (auto const& [key, array] : arrays) tensors.emplace_back(&key, detail::npy_payload(array, ctx, false));
  std::stable_sort(tensors.begin(), tensors.end(), [](auto const& a, auto const& b) {
    return item_size(a.second.dense.dtype()) > item_size(b.second.dense.dtype());
  });
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (auto const& [key, payload] : tensors) {
    auto const dtype = payload.dense.dtype();
    auto const type = std::find_if(detail::safetensors_types.begin(), detail::safetensors_types.end(),
                                   [dtype](auto const& t) { return t.second == dtype; });
    auto& entry = header[*key];
    entry["dtype"] = type->first;
    entry["shape"] = std::vector<std::int64_t>(payload.dense.shape().begin(), payload.dense.shape().end());
    entry["data_offsets"] = {offset, offset + payload.bytes};
    offset += payload.bytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (nlohmann::json::exception const& e) {
    detail::io_fail(ctx, "cannot write the header: ", e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string length;
  detail::store_le(length, static_cast<std::uint64_t>(text.size()));
  detail::OutFile out(ctx);
  out.write(length);
  out.write(text);
  for (auto const& [key, payload] : tensors) out.write(payload.data, payload.bytes);
  out.commit();
}

}  // namespace jaxcc::io
