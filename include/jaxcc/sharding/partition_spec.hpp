// PartitionSpec (P): for each array dimension, the mesh axes it is split
// over (none: not split; one name; or several, major to minor). Printed as
// JAX prints it: P('data', None), P(('x', 'y'),), P().
#pragma once

#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "jaxcc/core/none.hpp"

namespace jaxcc {

/// Several mesh axes for one dimension, major to minor: P(axes("x", "y")).
struct MeshAxes {
  std::vector<std::string> names;
};
template <class... Names>
  requires(std::is_convertible_v<Names, std::string> && ...)
MeshAxes axes(Names const&... names) {
  return MeshAxes{{std::string(names)...}};
}

class P {
 public:
  /// One dimension's entry: the mesh axes it is split over.
  struct Entry {
    std::vector<std::string> names;  // empty: None
    bool tuple = false;              // written as a tuple (prints as one)
    friend bool operator==(Entry const&, Entry const&) = default;
  };

  template <class... Es>
  explicit P(Es const&... entries) : entries_{entry(entries)...} {}

  /// A spec of these entries.
  static P from_entries(std::vector<Entry> entries) {
    P p;
    p.entries_ = std::move(entries);
    return p;
  }

  std::vector<Entry> const& entries() const noexcept { return entries_; }
  std::size_t size() const noexcept { return entries_.size(); }
  friend bool operator==(P const&, P const&) = default;

  friend std::ostream& operator<<(std::ostream& os, P const& p) {
    os << "P(";
    for (std::size_t i = 0; i < p.entries_.size(); ++i) {
      if (i) os << ", ";
      auto const& e = p.entries_[i];
      if (e.names.empty()) {
        os << "None";
      } else if (!e.tuple) {
        os << '\'' << e.names[0] << '\'';
      } else {
        os << '(';
        for (std::size_t k = 0; k < e.names.size(); ++k) os << (k ? ", '" : "'") << e.names[k] << '\'';
        os << (e.names.size() == 1 ? ",)" : ")");
      }
    }
    // A one-entry Python tuple keeps its comma: P('x',).
    return os << (p.entries_.size() == 1 ? ",)" : ")");
  }

 private:
  static Entry entry(none_t) { return {}; }
  static Entry entry(MeshAxes const& a) { return {a.names, true}; }
  template <class S>
    requires std::is_convertible_v<S, std::string>
  static Entry entry(S const& name) {
    return {{std::string(name)}, false};
  }
  std::vector<Entry> entries_;
};

inline std::string to_string(P const& p) {
  std::ostringstream os;
  os << p;
  return os.str();
}

}  // namespace jaxcc
