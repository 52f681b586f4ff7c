// jaxcc::io::load_npy and save_npy: numpy's .npy files (np.load, np.save,
// jnp.load), copied into arrays or memory-mapped without a copy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/core/array.hpp"
#include "jaxcc/core/buffer.hpp"
#include "jaxcc/io/file.hpp"
#include "jaxcc/io/npy_format.hpp"

namespace jaxcc::detail {

/// A column-major shape's strides (numpy's fortran_order).
inline Strides fortran_strides(Shape const& shape) {
  Strides out(shape.size(), 0);
  std::int64_t step = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) out[d] = step, step *= shape[d];
  return out;
}

/// Whether the bytes of a bool array are all 0 or 1 (any other byte is not a
/// C++ bool; numpy reads it as True).
inline bool npy_bools_valid(std::byte const* data, std::uint64_t n) noexcept {
  return std::all_of(data, data + n, [](std::byte b) { return b <= std::byte{1}; });
}

/// Stored bytes as this machine's elements: swapped, and bools made 0 or 1.
inline void npy_fix_elements(void* data, NpyHeader const& h) {
  auto const count = static_cast<std::size_t>(h.data_bytes / item_size(h.dtype));
  // A complex number is two floats, each stored in the file's byte order.
  auto const parts = is_complex(h.dtype) ? std::size_t{2} : std::size_t{1};
  if (h.swap) swap_bytes(data, count * parts, item_size(h.dtype) / parts);
  if (h.dtype == DType::bool_) {
    auto* bytes = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < count; ++i) bytes[i] = bytes[i] != 0;
  }
}

/// The array `h` describes, its data read from `source` into a fresh buffer.
/// Fortran-ordered data stays as it is stored: the array is a view of it
/// with column-major strides.
inline AnyArray read_npy_data(ByteSource& source, NpyHeader const& h) {
  Shape stored = h.shape;
  if (h.fortran) std::reverse(stored.begin(), stored.end());
  auto [array, data] = allocate_any(h.dtype, stored);
  advise_huge_pages(data, h.data_bytes);
  source.read(data, h.data_bytes, "the array's data");
  npy_fix_elements(data, h);
  return h.fortran ? view(array, h.shape, fortran_strides(h.shape), 0) : std::move(array);
}

/// A .npy file mapped: the array is a view of the mapping, which it keeps
/// alive. Data that must change to be read here (the other byte order, bool
/// bytes other than 0 and 1, elements not aligned) is copied instead.
inline AnyArray map_npy(IoContext const& ctx) {
  InFile file(ctx);
  auto mapping = std::make_shared<FileMapping const>(file);
  MemorySource source(ctx, mapping->data(), mapping->size());
  auto const h = read_npy_header(source, ctx);
  std::byte* data = mapping->data() + h.data_offset;
  bool const aligned = reinterpret_cast<std::uintptr_t>(data) % item_size(h.dtype) == 0;
  if (h.swap || !aligned || (h.dtype == DType::bool_ && !npy_bools_valid(data, h.data_bytes)))
    return read_npy_data(source, h);
  auto buffer =
      std::allocate_shared<Buffer>(BlockAllocator<Buffer>{}, static_cast<void*>(data), h.data_bytes, std::move(mapping));
  auto strides = h.fortran ? fortran_strides(h.shape) : contiguous_strides(h.shape);
  return AnyArray::from_handle(h.dtype, new_handle({h.shape, std::move(strides), 0, std::move(buffer)}));
}

/// An array's .npy bytes: the header, and its elements in one piece (a
/// column-major array's as they lie, with fortran_order True, as np.save
/// does, unless `allow_fortran` is false; any other layout copied to
/// row-major first).
struct NpyPayload {
  std::string header;
  AnyArray dense;  // keeps `data` alive
  void const* data = nullptr;
  std::uint64_t bytes = 0;
};

inline bool fortran_contiguous(ArrayImpl const& impl) noexcept {
  std::int64_t step = 1;
  for (std::size_t d = 0; d < impl.shape.size(); ++d) {
    if (impl.shape[d] != 1 && impl.strides[d] != step) return false;
    step *= impl.shape[d];
  }
  return true;
}

inline NpyPayload npy_payload(AnyArray const& x, IoContext const& ctx, bool allow_fortran = true) {
  auto const& impl = impl_of(x);
  if (impl.var) io_fail(ctx, "cannot save an array being traced (shape ", to_string(x.shape()), ")");
  if (impl.partly_elsewhere) io_fail(ctx, "cannot save an array whose parts other processes hold");
  bool const fortran = allow_fortran && x.ndim() > 1 && !contiguous(x) && fortran_contiguous(impl);
  NpyPayload out{npy_header_bytes(x.dtype(), x.shape(), fortran), fortran ? x : as_contiguous(x), nullptr, 0};
  out.bytes = static_cast<std::uint64_t>(x.size()) * item_size(x.dtype());
  if (out.bytes) out.data = data_of(out.dense);
  return out;
}

}  // namespace jaxcc::detail

namespace jaxcc::io {

/// Arrays by name: what an .npz or .safetensors file holds.
using ArrayMap = std::map<std::string, AnyArray>;

/// The array in the .npy file at `path`, at its stored dtype (as jnp.load:
/// ml_dtypes' bfloat16, which np.save stores as '<V2', is bfloat16). Any
/// byte order; a Fortran-ordered file gives a column-major view. With
/// `mmap`, the array is a copy-on-write mapping of the file, not a copy
/// (np.load's mmap_mode='c'), kept alive by the array.
inline AnyArray load_npy(std::filesystem::path const& path, bool mmap = false) {
  detail::IoContext const ctx{"jaxcc::io::load_npy", path};
  if (mmap) return detail::map_npy(ctx);
  detail::InFile file(ctx);
  detail::FileRangeSource source(file, 0, file.size());
  auto const header = detail::read_npy_header(source, ctx);
  return detail::read_npy_data(source, header);
}

/// The array in the .npy file at `path`, whose stored dtype must be T (a
/// file of another dtype is an error, never converted: load it untyped and
/// convert with astype).
template <Element T>
Array<T> load_npy(std::filesystem::path const& path, bool mmap = false) {
  auto array = load_npy(path, mmap);
  if (!array.holds<T>())
    detail::io_fail(detail::IoContext{"jaxcc::io::load_npy", path}, "holds an array of dtype ", name(array.dtype()),
                    ", not ", name(dtype_of<T>), " (jaxcc::io::load_npy(path) loads any dtype; astype converts)");
  return array.as<T>();
}

/// Write `x` to `path` as np.save does (the same bytes).
inline void save_npy(std::filesystem::path const& path, AnyArray const& x) {
  detail::IoContext const ctx{"jaxcc::io::save_npy", path};
  auto const payload = detail::npy_payload(x, ctx);
  detail::OutFile out(ctx);
  out.write(payload.header);
  out.write(payload.data, payload.bytes);
  out.commit();
}

}  // namespace jaxcc::io
