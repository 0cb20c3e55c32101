// The tuning cache (docs/tuning.md): per problem class (tune_key.hpp) the variant gpuopt_tune
// measured fastest on this device, and its run-time configuration where it ran one. Its file format
// (a versioned text file stamped with the device, driver and gpuopt version), the atomic write, the
// lookup table dispatch reads on the hot path, and a context's cache state.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpuopt.h"
#include "runtime/tune_key.hpp"

namespace gpuopt {

// Version of the file format, the number after the first line's magic word. Format 2 added the
// configuration ("-> variant:config ms"); format 1 files still parse (every entry the rung's own
// rule).
constexpr int kTuneFormat = 2;
constexpr int kTuneOldestFormat = 1;
constexpr char kTuneMagic[] = "gpuopt-tune-cache";

// What a cache was measured on. A file whose stamp differs from the context's is stale.
struct TuneStamp {
  std::string gpuopt;  // gpuopt_version_string()
  std::string device;  // marketing name
  int cc = 0;          // major * 10 + minor
  int sms = 0;
  int driver = 0;  // CUDA driver version

  bool operator==(const TuneStamp& o) const {
    return gpuopt == o.gpuopt && device == o.device && cc == o.cc && sms == o.sms &&
           driver == o.driver;
  }
};

TuneStamp tune_stamp_of(const gpuopt_device_info_t& info);

// One class and its measured variant.
struct TuneEntry {
  gpuopt_op_t op = GPUOPT_OP_AXPY;
  TuneKey key;
  int variant = -1;  // index in op's table
  int config = -1;   // the variant's run-time configuration (VariantConfigs), -1: its own rule
  double ms = 0.0;   // median per call when it was tuned
};

// The text of a cache file: header, then one line per entry, sorted (stable output).
std::string format_tune_cache(const TuneStamp& stamp, std::vector<TuneEntry> entries);

// One entry line without its newline: "gemm a=f32 ... -> variant[:config] ms".
std::string format_tune_entry(const TuneEntry& e);

// Parses a cache file's text (format kTuneOldestFormat .. kTuneFormat). False with *why (one
// line, naming the line number where it applies) when it is malformed or was made under another
// stamp than want. A configuration the variant does not have (another gpuopt's names) is not an
// error: that entry runs the rung's own rule (config -1), with a debug log line.
bool parse_tune_cache(const std::string& text, const TuneStamp& want, std::vector<TuneEntry>* out,
                      std::string* why);

// Replaces path by text atomically: a new file beside it, written, flushed to disk and renamed
// over path, so a reader sees the old file or the new one, never a part. False with *why.
bool write_file_atomically(const std::string& path, const std::string& text, std::string* why);

// Immutable lookup from (op, class) to variant, built once per cache change: open addressing in
// a power-of-two array at most half full. find() allocates nothing.
class TuneTable {
 public:
  explicit TuneTable(const std::vector<TuneEntry>& entries);
  // The entry's variant and configuration as a packed choice (registry.hpp), or -1.
  int find(gpuopt_op_t op, const TuneKey& key) const;
  int size() const { return size_; }

 private:
  struct Slot {
    TuneKey key;
    std::int16_t op = -1;  // -1: empty
    int choice = -1;       // pack_choice(variant, config)
  };
  std::vector<Slot> slots_;
  std::uint64_t mask_ = 0;
  int size_ = 0;
};

// A context's tuning cache: the attached file, the entries and the table dispatch reads.
// table() is one atomic load; attach and record are rare and serialized by a mutex. Published
// tables live as long as the cache (a dispatching thread may still read an older one).
class TuneCache {
 public:
  TuneCache() = default;
  TuneCache(const TuneCache&) = delete;
  TuneCache& operator=(const TuneCache&) = delete;

  // nullptr when no entry is cached (dispatch by the rules).
  const TuneTable* table() const { return table_.load(std::memory_order_acquire); }

  // Attaches path (nullptr: detaches and forgets every entry) and loads it for stamp; a missing
  // file is an empty cache; a stale or malformed one is ignored with one log line.
  void attach(const char* path, const TuneStamp& stamp);

  // Records e (replacing its class's entry) and, with a file attached, rewrites the file: the
  // entries it holds now (other processes may have added some) with this context's recorded
  // entries over them. False with *why when the file could not be written (e stays cached).
  bool record(const TuneEntry& e, std::string* why);

  int entries() const;

 private:
  void publish_locked();  // builds and publishes the table of entries_

  mutable std::mutex mu_;
  std::string path_;
  TuneStamp stamp_;
  std::vector<TuneEntry> entries_;   // everything cached
  std::vector<TuneEntry> recorded_;  // what this context measured since attach
  std::atomic<const TuneTable*> table_{nullptr};
  std::vector<std::unique_ptr<const TuneTable>> published_;
};

}  // namespace gpuopt
