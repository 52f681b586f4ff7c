// jaxcc::io::load_npz, save_npz and save_npz_compressed: numpy's .npz files
// (np.load of an archive, np.savez, np.savez_compressed): a zip archive of
// .npy files, one per name. Needs zlib (link ZLIB::ZLIB, or jaxcc::io).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "jaxcc/core/any_array.hpp"
#include "jaxcc/io/file.hpp"
#include "jaxcc/io/npy.hpp"
#include "jaxcc/io/npy_format.hpp"
#include "jaxcc/io/zip.hpp"

namespace jaxcc::detail {

/// One entry's array, its CRC-32 checked; errors name the entry as
/// 'archive/entry'.
inline AnyArray read_npz_entry(InFile const& file, ZipEntry const& e) {
  auto const entry_path = file.context().path / e.name;
  IoContext const ctx{file.context().op, entry_path};
  auto const offset = zip_data_offset(file, e);
  auto read = [&](ByteSource& raw) {
    CrcSource source(raw);
    auto const header = read_npy_header(source, ctx);
    auto array = read_npy_data(source, header);
    if (source.remaining() != 0) io_fail(ctx, source.remaining(), " bytes follow the array's data");
    if (source.crc() != e.crc) io_fail(ctx, "CRC-32 mismatch: the entry is corrupt");
    return array;
  };
  if (e.method == 8) {
    InflateSource source(file, e, offset);
    return read(source);
  }
  if (e.compressed != e.uncompressed)
    io_fail(ctx, "a stored entry of ", e.compressed, " bytes says it holds ", e.uncompressed);
  FileRangeSource source(file, offset, e.compressed);
  return read(source);
}

inline void write_npz(IoContext const& ctx, io::ArrayMap const& arrays, bool compress) {
  OutFile out(ctx);
  ZipWriter zip(out, ctx);
  for (auto const& [key, array] : arrays) {
    auto const payload = npy_payload(array, ctx);
    zip.add(key + ".npy",
            {payload.header, std::string_view(static_cast<char const*>(payload.data), payload.bytes)}, compress);
  }
  zip.finish();
  out.commit();
}

}  // namespace jaxcc::detail

namespace jaxcc::io {

/// The arrays in the .npz file at `path`, by name (the entry's name less
/// ".npy", as np.load's NpzFile keys them), each at its stored dtype.
/// Stored and deflated entries, zip64 archives.
inline ArrayMap load_npz(std::filesystem::path const& path) {
  detail::IoContext const ctx{"jaxcc::io::load_npz", path};
  detail::InFile file(ctx);
  ArrayMap out;
  for (auto const& entry : detail::zip_entries(file)) {
    std::string_view name = entry.name;
    if (!name.ends_with(".npy")) detail::io_fail(ctx, "entry '", name, "' is not an .npy array");
    name.remove_suffix(4);
    if (out.contains(std::string(name))) detail::io_fail(ctx, "two entries are named '", entry.name, "'");
    out.emplace(std::string(name), detail::read_npz_entry(file, entry));
  }
  return out;
}

/// Write the arrays to `path` as np.savez(path, **arrays) does: each one an
/// .npy entry named after its key, stored uncompressed.
inline void save_npz(std::filesystem::path const& path, ArrayMap const& arrays) {
  detail::write_npz(detail::IoContext{"jaxcc::io::save_npz", path}, arrays, false);
}

/// As save_npz, deflated (np.savez_compressed).
inline void save_npz_compressed(std::filesystem::path const& path, ArrayMap const& arrays) {
  detail::write_npz(detail::IoContext{"jaxcc::io::save_npz_compressed", path}, arrays, true);
}

}  // namespace jaxcc::io
