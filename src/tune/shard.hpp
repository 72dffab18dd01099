#pragma once
// --shard I/N: one of N disjoint, balanced slices of a run's (config, shape) pairs, so that N independent jobs
// (a Slurm job array, tools/slurm/) cover a space exactly once and their databases merge into the one an unsharded
// run gives (mpgemm-query merge).
//
// The slice depends only on the space and the shapes, never on the machine: the k-th config the exhaustive search
// proposes for shape s (its place in the space's fixed order) belongs to shard ((k + s) mod N) + 1. Each shard so
// takes every N-th config of every shape, starting one further along for each shape, which keeps the shards within
// one pair of each other per shape whatever the number of shapes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mpgemm {

struct Shard {
  int index = 1;  // 1-based
  int count = 1;

  // "I/N" with 1 <= I <= N. Throws UsageError naming what is wrong.
  static Shard parse(std::string_view text);
  std::string str() const;  // "I/N"
  // Whether the pair of the config proposed `config_ordinal`-th (0-based) for shape `shape_index` is this shard's.
  bool takes(std::size_t config_ordinal, std::size_t shape_index) const;
  // How many of the pairs of `configs` configs (per shape) x `shapes` shapes are this shard's.
  std::size_t pairs(std::size_t configs, std::size_t shapes) const;
};

}  // namespace mpgemm
