// Each distinct name once, numbered from 0 in order of first appearance:
// the vertex names of an edge list (io/snap.cpp) and the keys of a graph
// file's vertices (io/graph_files.cpp). The names live in blocks that never
// move; the index is open addressing over (hash, name, number) slots, linear
// probing, at most half full: one cache line a probe, where
// std::unordered_map's nodes took two misses and most of the parse (5 M lines
// of 1 M names: 62% of it in the map). A slot holds its name's first 8 bytes,
// so a name of 8 bytes or fewer ("v123456", GraphML's "n4711") is matched
// without a second miss into the blocks (memcmp there was 10% of a GraphML
// parse).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../core/formats.hpp"

namespace perron::io::detail {

// intern: the name's number, a new one where it is new, -1 past max_index names.
class name_table {
 public:
  index_t intern(std::string_view s) {
    const std::uint64_t h = std::hash<std::string_view>{}(s) | 1;  // 0 marks an empty slot
    if (2 * (order_.size() + 1) > slots_.size()) grow();
    std::size_t at = static_cast<std::size_t>(h) & (slots_.size() - 1);
    for (;; at = (at + 1) & (slots_.size() - 1)) {
      slot& e = slots_[at];
      if (e.hash == 0) break;
      if (e.hash == h && e.holds(s)) return e.id;
    }
    if (order_.size() >= static_cast<std::size_t>(max_index)) return -1;
    if (s.size() > UINT32_MAX)
      throw std::length_error("a vertex name of " + std::to_string(s.size()) + " bytes (more than 4 GiB)");
    const auto id = static_cast<index_t>(order_.size());
    const std::string_view kept = keep(s);
    slot& e = slots_[at];
    e.hash = h;
    e.name = kept.data();
    e.size = static_cast<std::uint32_t>(kept.size());
    e.id = id;
    std::memcpy(e.head, kept.data(), std::min<std::size_t>(kept.size(), sizeof e.head));
    order_.push_back(kept);
    return id;
  }
  // The number of `s` where it was interned, else -1.
  index_t find(std::string_view s) const {
    if (slots_.empty()) return -1;
    const std::uint64_t h = std::hash<std::string_view>{}(s) | 1;
    for (std::size_t at = static_cast<std::size_t>(h) & (slots_.size() - 1);;
         at = (at + 1) & (slots_.size() - 1)) {
      const slot& e = slots_[at];
      if (e.hash == 0) return -1;
      if (e.hash == h && e.holds(s)) return e.id;
    }
  }
  std::size_t size() const { return order_.size(); }
  std::string_view operator[](index_t id) const { return order_[static_cast<std::size_t>(id)]; }
  std::vector<std::string> names() const { return {order_.begin(), order_.end()}; }

 private:
  // The name beside its hash: no third miss through order_; 32 bytes, aligned
  // so, two a cache line and none across two.
  struct alignas(32) slot {
    std::uint64_t hash = 0;
    const char* name = nullptr;
    std::uint32_t size = 0;  // intern refuses a longer name
    index_t id = 0;
    char head[8] = {};  // the name's first bytes
    bool holds(std::string_view s) const {
      if (size != s.size()) return false;
      const std::size_t k = std::min<std::size_t>(size, sizeof head);
      return std::memcmp(head, s.data(), k) == 0 &&
             (size <= sizeof head || std::memcmp(name + k, s.data() + k, size - k) == 0);
    }
  };
  static_assert(sizeof(slot) == 32, "two slots a cache line");
  void grow() {
    std::vector<slot> old(std::max<std::size_t>(1024, 2 * slots_.size()));
    old.swap(slots_);
    for (const slot& e : old) {
      if (e.hash == 0) continue;
      std::size_t at = static_cast<std::size_t>(e.hash) & (slots_.size() - 1);
      while (slots_[at].hash != 0) at = (at + 1) & (slots_.size() - 1);
      slots_[at] = e;
    }
  }
  std::string_view keep(std::string_view s) {
    if (blocks_.empty() || used_ + s.size() > block_size_) {
      block_size_ = std::max<std::size_t>(std::size_t(1) << 20, s.size());
      blocks_.emplace_back(new char[block_size_]);
      used_ = 0;
    }
    char* at = blocks_.back().get() + used_;
    std::copy(s.begin(), s.end(), at);
    used_ += s.size();
    return {at, s.size()};
  }
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_size_ = 0, used_ = 0;
  std::vector<slot> slots_;
  std::vector<std::string_view> order_;
};

}  // namespace perron::io::detail
