// The zip archives .npz files are (PKWARE's APPNOTE): reading stored and
// deflated entries, zip64 included (np.savez writes every entry with zip64
// local headers), each entry's CRC-32 checked; and writing them as
// np.savez / np.savez_compressed do. Needs zlib.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "jaxcc/io/file.hpp"

namespace jaxcc::detail {

inline constexpr std::uint32_t zip_local_sig = 0x04034b50, zip_central_sig = 0x02014b50, zip_end_sig = 0x06054b50,
                               zip64_end_sig = 0x06064b50, zip64_locator_sig = 0x07064b50;
inline constexpr std::uint32_t zip_max32 = 0xffffffff;

/// One entry of the central directory.
struct ZipEntry {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint32_t crc = 0;
  std::uint64_t compressed = 0, uncompressed = 0, local_offset = 0;
};

/// Where the central directory is and how many entries it has.
struct ZipDirectory {
  std::uint64_t entries = 0, offset = 0, size = 0;
};

/// The end record (and the zip64 one where there is one): found as
/// Python's zipfile finds it, the last signature within the final 64 KiB
/// plus the record.
inline ZipDirectory zip_directory(InFile const& file) {
  auto const& ctx = file.context();
  if (file.size() < 22) io_fail(ctx, "not a zip archive: ", file.size(), " bytes is too short");
  auto const tail = std::min<std::uint64_t>(file.size(), 22 + 0xffff);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(tail));
  file.read(bytes.data(), tail, file.size() - tail, "the end of the archive");
  std::size_t at = bytes.size() - 22;
  while (load_le<std::uint32_t>(&bytes[at]) != zip_end_sig)
    if (at-- == 0) io_fail(ctx, "not a zip archive (no end-of-central-directory record)");
  auto const* end = &bytes[at];
  std::uint64_t const end_pos = file.size() - tail + at;
  ZipDirectory dir{load_le<std::uint16_t>(end + 10), load_le<std::uint32_t>(end + 16), load_le<std::uint32_t>(end + 12)};
  if (load_le<std::uint16_t>(end + 4) != 0 || load_le<std::uint16_t>(end + 6) != 0)
    io_fail(ctx, "archives spanning several disks are not supported");
  unsigned char locator[20];
  if (end_pos >= 20) {
    file.read(locator, 20, end_pos - 20, "the zip64 locator");
    if (load_le<std::uint32_t>(locator) == zip64_locator_sig) {
      unsigned char end64[56];
      file.read(end64, 56, load_le<std::uint64_t>(locator + 8), "the zip64 end record");
      if (load_le<std::uint32_t>(end64) != zip64_end_sig) io_fail(ctx, "bad zip64 end-of-central-directory record");
      dir = {load_le<std::uint64_t>(end64 + 32), load_le<std::uint64_t>(end64 + 48), load_le<std::uint64_t>(end64 + 40)};
    }
  }
  if (dir.offset > file.size() || dir.size > file.size() - dir.offset)
    io_fail(ctx, "the central directory (", dir.size, " bytes at ", dir.offset, ") lies past the end of the file (",
            file.size(), " bytes)");
  if (dir.entries > dir.size / 46) io_fail(ctx, "the central directory is too small for its ", dir.entries, " entries");
  return dir;
}

/// The 64-bit sizes and offset of a zip64 extra field, for the fields the
/// 32-bit ones mark as 0xffffffff, in the order the format gives them.
inline void zip64_extra(IoContext const& ctx, unsigned char const* extra, std::size_t size, ZipEntry& e,
                        bool big_offset) {
  for (std::size_t at = 0; at + 4 <= size;) {
    auto const id = load_le<std::uint16_t>(extra + at), length = load_le<std::uint16_t>(extra + at + 2);
    at += 4;
    if (length > size - at) io_fail(ctx, "entry '", e.name, "': an extra field runs past its end");
    if (id == 1) {
      std::size_t k = at;
      for (auto* field : {e.uncompressed == zip_max32 ? &e.uncompressed : nullptr,
                          e.compressed == zip_max32 ? &e.compressed : nullptr, big_offset ? &e.local_offset : nullptr})
        if (field) {
          if (k + 8 > at + length) io_fail(ctx, "entry '", e.name, "': its zip64 extra field is too short");
          *field = load_le<std::uint64_t>(extra + k), k += 8;
        }
    }
    at += length;
  }
}

/// The entries of the central directory.
inline std::vector<ZipEntry> zip_entries(InFile const& file) {
  auto const& ctx = file.context();
  auto const dir = zip_directory(file);
  std::vector<unsigned char> cd(static_cast<std::size_t>(dir.size));
  file.read(cd.data(), dir.size, dir.offset, "the central directory");
  std::vector<ZipEntry> out;
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < dir.entries; ++i) {
    if (cd.size() - at < 46 || load_le<std::uint32_t>(&cd[at]) != zip_central_sig)
      io_fail(ctx, "bad central directory entry ", i);
    auto const* h = &cd[at];
    std::size_t const name_size = load_le<std::uint16_t>(h + 28), extra_size = load_le<std::uint16_t>(h + 30),
                      comment_size = load_le<std::uint16_t>(h + 32);
    if (cd.size() - at - 46 < name_size + extra_size + comment_size)
      io_fail(ctx, "central directory entry ", i, " runs past the directory's end");
    ZipEntry e{std::string(reinterpret_cast<char const*>(h + 46), name_size), load_le<std::uint16_t>(h + 10),
               load_le<std::uint32_t>(h + 16), load_le<std::uint32_t>(h + 20), load_le<std::uint32_t>(h + 24),
               load_le<std::uint32_t>(h + 42)};
    zip64_extra(ctx, h + 46 + name_size, extra_size, e, e.local_offset == zip_max32);
    if (load_le<std::uint16_t>(h + 8) & 1) io_fail(ctx, "entry '", e.name, "' is encrypted");
    if (e.method != 0 && e.method != 8)
      io_fail(ctx, "entry '", e.name, "' uses compression method ", e.method, " (only stored and deflated are read)");
    out.push_back(std::move(e));
    at += 46 + name_size + extra_size + comment_size;
  }
  return out;
}

/// Where an entry's data starts (after its local header).
inline std::uint64_t zip_data_offset(InFile const& file, ZipEntry const& e) {
  unsigned char h[30];
  file.read(h, 30, e.local_offset, "an entry's local header");
  if (load_le<std::uint32_t>(h) != zip_local_sig) io_fail(file.context(), "entry '", e.name, "': bad local header");
  std::uint64_t const data = e.local_offset + 30 + load_le<std::uint16_t>(h + 26) + load_le<std::uint16_t>(h + 28);
  if (data > file.size() || e.compressed > file.size() - data)
    io_fail(file.context(), "truncated: entry '", e.name, "' needs ", e.compressed, " bytes at ", data,
            ", the file has ", file.size());
  return data;
}

/// A deflated entry's bytes, inflated as they are read.
class InflateSource final : public ByteSource {
 public:
  InflateSource(InFile const& file, ZipEntry const& e, std::uint64_t offset)
      : file_(file), name_(e.name), offset_(offset), in_left_(e.compressed), out_left_(e.uncompressed) {
    // Deflate expands nothing past 1032:1; a size beyond that is a lie.
    if (e.uncompressed / 1032 > e.compressed + 1)
      io_fail(file.context(), "entry '", e.name, "' claims ", e.uncompressed, " bytes from ", e.compressed,
              " compressed ones, more than deflate can give");
    if (inflateInit2(&z_, -MAX_WBITS) != Z_OK) io_fail(file.context(), "zlib's inflateInit2 failed");
    in_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(in_left_, std::uint64_t{1} << 20)));
  }
  InflateSource(InflateSource const&) = delete;
  InflateSource& operator=(InflateSource const&) = delete;
  ~InflateSource() override { inflateEnd(&z_); }

  void read(void* out, std::uint64_t n, std::string_view what) override {
    auto const& ctx = file_.context();
    if (n > out_left_) io_fail(ctx, "truncated: entry '", name_, "': ", what, " needs ", n, " bytes, ", out_left_, " are left");
    z_.next_out = static_cast<Bytef*>(out);
    for (std::uint64_t left = n; left > 0;) {
      if (z_.avail_in == 0 && in_left_ > 0) refill();
      z_.avail_out = static_cast<uInt>(std::min<std::uint64_t>(left, std::uint64_t{1} << 30));
      auto const before = z_.avail_out;
      int const status = inflate(&z_, Z_NO_FLUSH);
      left -= before - z_.avail_out;
      if (status == Z_STREAM_END && left > 0)
        io_fail(ctx, "truncated: entry '", name_, "': its deflate stream ends ", left, " bytes early");
      if (status != Z_OK && status != Z_STREAM_END && !(status == Z_BUF_ERROR && in_left_ > 0))
        io_fail(ctx, "entry '", name_, "': corrupt deflate data (", z_.msg ? z_.msg : "zlib error ", status, ")");
    }
    out_left_ -= n;
  }
  std::uint64_t remaining() const noexcept override { return out_left_; }

 private:
  void refill() {
    auto const n = std::min<std::uint64_t>(in_left_, in_.size());
    file_.read(in_.data(), n, offset_, "deflated data");
    offset_ += n, in_left_ -= n;
    z_.next_in = in_.data();
    z_.avail_in = static_cast<uInt>(n);
  }
  InFile const& file_;
  std::string name_;
  std::uint64_t offset_, in_left_, out_left_;
  std::vector<Bytef> in_;
  z_stream z_{};
};

/// Another source's bytes, with their CRC-32 and count kept.
class CrcSource final : public ByteSource {
 public:
  explicit CrcSource(ByteSource& inner) : inner_(inner) {}
  void read(void* out, std::uint64_t n, std::string_view what) override {
    inner_.read(out, n, what);
    if (n)  // (crc32_z of a null buffer starts over)
      crc_ = static_cast<std::uint32_t>(crc32_z(crc_, static_cast<Bytef const*>(out), static_cast<z_size_t>(n)));
  }
  std::uint64_t remaining() const noexcept override { return inner_.remaining(); }
  std::uint32_t crc() const noexcept { return crc_; }

 private:
  ByteSource& inner_;
  std::uint32_t crc_ = 0;
};

/// Writes an archive entry by entry, as Python's zipfile does for np.savez
/// (force_zip64: each local header has a zip64 extra field), then the
/// central directory.
class ZipWriter {
 public:
  ZipWriter(OutFile& out, IoContext const& ctx) : out_(out), ctx_(ctx) {}

  /// An entry named `name` holding the pieces, one after another.
  void add(std::string const& name, std::initializer_list<std::string_view> pieces, bool compress) {
    if (name.size() > 0xffff) io_fail(ctx_, "an entry name of ", name.size(), " bytes is too long for zip");
    Written w{name, compress ? std::uint16_t{8} : std::uint16_t{0}, 0, 0, 0, out_.offset()};
    std::string header;
    if (compress) {  // the header is written again once the sizes are known
      local_header(header, w);
      out_.write(header);
      deflate_pieces(pieces, w);
      header.clear();
      local_header(header, w);
      out_.write_at(header.data(), header.size(), w.offset);
    } else {
      for (auto piece : pieces) {
        if (piece.empty()) continue;  // (crc32_z of a null buffer starts over)
        w.crc = static_cast<std::uint32_t>(crc32_z(w.crc, reinterpret_cast<Bytef const*>(piece.data()), piece.size()));
        w.uncompressed += piece.size();
      }
      w.compressed = w.uncompressed;
      local_header(header, w);
      out_.write(header);
      for (auto piece : pieces) out_.write(piece);
    }
    written_.push_back(std::move(w));
  }

  /// The central directory and end records.
  void finish() {
    std::uint64_t const cd_offset = out_.offset();
    std::string cd;
    for (auto const& w : written_) central_header(cd, w);
    out_.write(cd);
    std::string end;
    std::uint64_t const count = written_.size(), cd_size = cd.size();
    if (count >= 0xffff || cd_size >= zip_max32 || cd_offset >= zip_max32) {
      std::uint64_t const end64_offset = out_.offset();
      store_le(end, zip64_end_sig), store_le(end, std::uint64_t{44}), store_le(end, std::uint16_t{45});
      store_le(end, std::uint16_t{45}), store_le(end, std::uint32_t{0}), store_le(end, std::uint32_t{0});
      store_le(end, count), store_le(end, count), store_le(end, cd_size), store_le(end, cd_offset);
      store_le(end, zip64_locator_sig), store_le(end, std::uint32_t{0}), store_le(end, end64_offset);
      store_le(end, std::uint32_t{1});
    }
    store_le(end, zip_end_sig), store_le(end, std::uint32_t{0});
    store_le(end, static_cast<std::uint16_t>(std::min<std::uint64_t>(count, 0xffff)));
    store_le(end, static_cast<std::uint16_t>(std::min<std::uint64_t>(count, 0xffff)));
    store_le(end, static_cast<std::uint32_t>(std::min<std::uint64_t>(cd_size, zip_max32)));
    store_le(end, static_cast<std::uint32_t>(std::min<std::uint64_t>(cd_offset, zip_max32)));
    store_le(end, std::uint16_t{0});
    out_.write(end);
  }

 private:
  struct Written {
    std::string name;
    std::uint16_t method;
    std::uint32_t crc;
    std::uint64_t compressed, uncompressed, offset;
  };
  static std::uint16_t flags(std::string const& name) {  // bit 11: the name is UTF-8
    return std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }) ? 0x800 : 0;
  }
  static void local_header(std::string& h, Written const& w) {
    store_le(h, zip_local_sig), store_le(h, std::uint16_t{45}), store_le(h, flags(w.name)), store_le(h, w.method);
    store_le(h, std::uint16_t{0}), store_le(h, std::uint16_t{0x21});  // 1980-01-01 00:00
    store_le(h, w.crc), store_le(h, zip_max32), store_le(h, zip_max32);
    store_le(h, static_cast<std::uint16_t>(w.name.size())), store_le(h, std::uint16_t{20});
    h += w.name;
    store_le(h, std::uint16_t{1}), store_le(h, std::uint16_t{16}), store_le(h, w.uncompressed), store_le(h, w.compressed);
  }
  static void central_header(std::string& h, Written const& w) {
    bool const big[3] = {w.uncompressed >= zip_max32, w.compressed >= zip_max32, w.offset >= zip_max32};
    std::uint64_t const values[3] = {w.uncompressed, w.compressed, w.offset};
    std::string extra;
    for (int i = 0; i < 3; ++i)
      if (big[i]) store_le(extra, values[i]);
    if (!extra.empty()) extra = std::string("\x01\x00", 2) + char(extra.size()) + '\0' + extra;
    store_le(h, zip_central_sig), store_le(h, std::uint16_t{0x032d}), store_le(h, std::uint16_t{45});
    store_le(h, flags(w.name)), store_le(h, w.method), store_le(h, std::uint16_t{0}), store_le(h, std::uint16_t{0x21});
    store_le(h, w.crc);
    store_le(h, static_cast<std::uint32_t>(big[1] ? zip_max32 : w.compressed));
    store_le(h, static_cast<std::uint32_t>(big[0] ? zip_max32 : w.uncompressed));
    store_le(h, static_cast<std::uint16_t>(w.name.size())), store_le(h, static_cast<std::uint16_t>(extra.size()));
    store_le(h, std::uint16_t{0}), store_le(h, std::uint16_t{0}), store_le(h, std::uint16_t{0});
    store_le(h, std::uint32_t{0600} << 16);
    store_le(h, static_cast<std::uint32_t>(big[2] ? zip_max32 : w.offset));
    h += w.name;
    h += extra;
  }
  void deflate_pieces(std::initializer_list<std::string_view> pieces, Written& w) {
    z_stream z{};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      io_fail(ctx_, "zlib's deflateInit2 failed");
    std::vector<Bytef> buffer(std::size_t{1} << 18);
    auto drain = [&](int flush) {
      int status = Z_OK;
      do {
        z.next_out = buffer.data(), z.avail_out = static_cast<uInt>(buffer.size());
        status = deflate(&z, flush);
        auto const n = buffer.size() - z.avail_out;
        out_.write(buffer.data(), n);
        w.compressed += n;
      } while (z.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
    };
    try {
      for (auto piece : pieces) {
        if (piece.empty()) continue;
        auto const* p = reinterpret_cast<Bytef const*>(piece.data());
        w.crc = static_cast<std::uint32_t>(crc32_z(w.crc, p, piece.size()));
        w.uncompressed += piece.size();
        for (std::size_t left = piece.size(); left > 0;) {
          auto const n = std::min<std::size_t>(left, std::size_t{1} << 30);
          z.next_in = const_cast<Bytef*>(p), z.avail_in = static_cast<uInt>(n);
          drain(Z_NO_FLUSH);
          p += n, left -= n;
        }
      }
      drain(Z_FINISH);
    } catch (...) {
      deflateEnd(&z);
      throw;
    }
    deflateEnd(&z);
  }

  OutFile& out_;
  IoContext ctx_;
  std::vector<Written> written_;
};

}  // namespace jaxcc::detail
