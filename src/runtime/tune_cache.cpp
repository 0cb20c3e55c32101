#include "runtime/tune_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/log.hpp"
#include "runtime/registry.hpp"

namespace gpuopt {
namespace {

constexpr int kMaxDtype = GPUOPT_DTYPE_U64;

std::string field_value(const TuneField& f, std::int16_t v) {
  switch (f.kind) {
    case TuneFieldKind::kDtype: {
      const char* n = gpuopt_dtype_name(static_cast<gpuopt_dtype_t>(v));
      return n ? n : std::to_string(v);
    }
    case TuneFieldKind::kLog2:
      return v == 0 ? "0" : "2^" + std::to_string(v - 1);
    case TuneFieldKind::kNumber:
      break;
  }
  return std::to_string(v);
}

// A whole decimal integer in [lo, hi].
bool parse_int(const std::string& s, long lo, long hi, long* out) {
  if (s.empty() || s.size() > 12) return false;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_field(const TuneField& f, const std::string& s, std::int16_t* out) {
  long v = 0;
  switch (f.kind) {
    case TuneFieldKind::kDtype:
      for (int t = 0; t <= kMaxDtype; ++t) {
        const char* n = gpuopt_dtype_name(static_cast<gpuopt_dtype_t>(t));
        if (n && s == n) {
          *out = static_cast<std::int16_t>(t);
          return true;
        }
      }
      return false;
    case TuneFieldKind::kLog2:
      if (s == "0") {
        *out = 0;
        return true;
      }
      if (s.rfind("2^", 0) != 0 || !parse_int(s.substr(2), 0, 62, &v)) return false;
      *out = static_cast<std::int16_t>(v + 1);
      return true;
    case TuneFieldKind::kNumber:
      if (!parse_int(s, -32768, 32767, &v)) return false;
      *out = static_cast<std::int16_t>(v);
      return true;
  }
  return false;
}

bool op_by_name(const std::string& s, gpuopt_op_t* op) {
  for (int i = 0; i < kOpCount; ++i) {
    const OpTable* t = op_table(static_cast<gpuopt_op_t>(i));
    if (t && s == t->op_name) {
      *op = static_cast<gpuopt_op_t>(i);
      return true;
    }
  }
  return false;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// One entry line; false with *why.
bool parse_entry(const std::string& line, TuneEntry* e, std::string* why) {
  const std::vector<std::string> w = words(line);
  if (w.empty() || !op_by_name(w[0], &e->op)) {
    *why = "unknown op '" + (w.empty() ? std::string() : w[0]) + "'";
    return false;
  }
  const TuneSchema& sc = *tune_schema(e->op);
  const std::size_t n = static_cast<std::size_t>(sc.count);
  if (w.size() != n + 4 || w[n + 1] != "->") {
    *why = "expected '" + w[0] + "', " + std::to_string(n) + " fields, '->', variant[:config], ms";
    return false;
  }
  e->key = TuneKey{};
  for (std::size_t i = 0; i < n; ++i) {
    const TuneField& f = sc.fields[i];
    const std::string want = std::string(f.name) + "=";
    if (w[i + 1].rfind(want, 0) != 0 ||
        !parse_field(f, w[i + 1].substr(want.size()), &e->key.f[i])) {
      *why = "field " + std::to_string(i + 1) + " is '" + w[i + 1] + "', expected " + f.name +
             "=<value>";
      return false;
    }
  }
  std::string unknown;
  int variant = -1;
  const int choice = find_choice(*op_table(e->op), w[n + 2].c_str(), &unknown, &variant);
  if (variant < 0) {
    *why = "no " + w[0] + " variant '" + w[n + 2] + "'";
    return false;
  }
  if (choice < 0)  // another gpuopt's configuration: the rung's own rule runs the class
    log(LogLevel::debug, "tuning cache: %s; that entry runs the variant's own rule",
        unknown.c_str());
  e->variant = variant;
  e->config = choice_config(choice);
  char* end = nullptr;
  e->ms = std::strtod(w[n + 3].c_str(), &end);
  if (*end || !(e->ms >= 0.0) || e->ms > 1e12) {
    *why = "time '" + w[n + 3] + "' is not a number of milliseconds";
    return false;
  }
  return true;
}

// "key value" header line: the value after the first space, or false.
bool header_value(const std::string& line, const char* key, std::string* value) {
  const std::size_t k = std::strlen(key);
  if (line.size() <= k || line.compare(0, k, key) != 0 || line[k] != ' ') return false;
  *value = line.substr(k + 1);
  return true;
}

bool read_file(const std::string& path, std::string* text, bool* missing, std::string* why) {
  std::ifstream in(path, std::ios::binary);
  *missing = false;
  if (!in) {
    *missing = errno == ENOENT;
    *why = std::string("cannot open it: ") + std::strerror(errno);
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) {
    *why = "read error";
    return false;
  }
  *text = s.str();
  return true;
}

bool same_class(const TuneEntry& a, const TuneEntry& b) { return a.op == b.op && a.key == b.key; }

void put(std::vector<TuneEntry>* v, const TuneEntry& e) {
  for (TuneEntry& x : *v) {
    if (same_class(x, e)) {
      x = e;
      return;
    }
  }
  v->push_back(e);
}

}  // namespace

TuneStamp tune_stamp_of(const gpuopt_device_info_t& info) {
  TuneStamp s;
  s.gpuopt = gpuopt_version_string();
  s.device = info.name;
  s.cc = info.cc_major * 10 + info.cc_minor;
  s.sms = info.sm_count;
  s.driver = info.driver_version;
  return s;
}

std::string format_tune_entry(const TuneEntry& e) {
  const TuneSchema& sc = *tune_schema(e.op);
  std::string s = op_table(e.op)->op_name;
  for (int i = 0; i < sc.count; ++i)
    s += std::string(" ") + sc.fields[i].name + "=" + field_value(sc.fields[i], e.key.f[i]);
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.6g", e.ms);
  return s + " -> " + choice_name(*op_table(e.op), pack_choice(e.variant, e.config)) + " " + ms;
}

std::string format_tune_cache(const TuneStamp& stamp, std::vector<TuneEntry> entries) {
  std::sort(entries.begin(), entries.end(), [](const TuneEntry& a, const TuneEntry& b) {
    if (a.op != b.op) return a.op < b.op;
    return std::lexicographical_compare(a.key.f, a.key.f + kTuneFields, b.key.f,
                                        b.key.f + kTuneFields);
  });
  // The oldest format that holds the entries: 1 when none records a configuration, so that a
  // gpuopt that predates configurations reads the file too.
  const bool configs =
      std::any_of(entries.begin(), entries.end(), [](const TuneEntry& e) { return e.config >= 0; });
  std::string s = std::string(kTuneMagic) + " " +
                  std::to_string(configs ? kTuneFormat : kTuneOldestFormat) + "\n";
  s += "# Written by gpuopt_tune / gpuopt-bench --tune; docs/tuning.md describes the format.\n";
  s += "gpuopt " + stamp.gpuopt + "\n";
  s += "device " + stamp.device + "\n";
  s += "cc " + std::to_string(stamp.cc) + "\n";
  s += "sms " + std::to_string(stamp.sms) + "\n";
  s += "driver " + std::to_string(stamp.driver) + "\n";
  for (const TuneEntry& e : entries) s += format_tune_entry(e) + "\n";
  return s;
}

bool parse_tune_cache(const std::string& text, const TuneStamp& want, std::vector<TuneEntry>* out,
                      std::string* why) {
  out->clear();
  std::istringstream in(text);
  std::string line;
  int no = 0;
  // Header: magic and format, then the stamp's fields in this order.
  const char* const keys[] = {"gpuopt", "device", "cc", "sms", "driver"};
  std::string vals[5];
  int have = -1;                           // -1: magic line not seen yet
  auto at = [&](const std::string& msg) {  // a file is taken whole or not at all
    out->clear();
    *why = "line " + std::to_string(no) + ": " + msg;
    return false;
  };
  while (std::getline(in, line)) {
    ++no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (have < 0) {
      std::string v;
      if (!header_value(line, kTuneMagic, &v)) return at("not a gpuopt tuning cache");
      long format = 0;
      if (!parse_int(v, kTuneOldestFormat, kTuneFormat, &format))
        return at("format " + v + ", this gpuopt reads formats " +
                  std::to_string(kTuneOldestFormat) + " to " + std::to_string(kTuneFormat));
      have = 0;
      continue;
    }
    if (have < 5) {
      if (!header_value(line, keys[have], &vals[have]))
        return at(std::string("expected '") + keys[have] + " <value>'");
      if (++have == 5) {
        TuneStamp got;
        got.gpuopt = vals[0];
        got.device = vals[1];
        long cc = 0, sms = 0, driver = 0;
        if (!parse_int(vals[2], 0, 10000, &cc) || !parse_int(vals[3], 0, 1000000, &sms) ||
            !parse_int(vals[4], 0, 100000000, &driver))
          return at("cc, sms and driver must be integers");
        got.cc = static_cast<int>(cc);
        got.sms = static_cast<int>(sms);
        got.driver = static_cast<int>(driver);
        if (got.gpuopt != want.gpuopt)
          return at("made by gpuopt " + got.gpuopt + "; this is " + want.gpuopt + " (stale)");
        if (got.device != want.device || got.cc != want.cc || got.sms != want.sms)
          return at("made on " + got.device + " (cc " + vals[2] + ", " + vals[3] +
                    " SMs); this device is " + want.device + " (cc " + std::to_string(want.cc) +
                    ", " + std::to_string(want.sms) + " SMs) (stale)");
        if (got.driver != want.driver)
          return at("made under driver " + vals[4] + "; this driver is " +
                    std::to_string(want.driver) + " (stale)");
      }
      continue;
    }
    TuneEntry e;
    std::string bad;
    if (!parse_entry(line, &e, &bad)) return at(bad);
    for (const TuneEntry& x : *out)
      if (same_class(x, e)) return at("a second entry for the class of an earlier line");
    out->push_back(e);
  }
  if (have < 5) {
    *why = have < 0 ? "empty file" : "the header ends early";
    out->clear();
    return false;
  }
  return true;
}

bool write_file_atomically(const std::string& path, const std::string& text, std::string* why) {
  // Unique per process and call: contexts of one process may share a file.
  static std::atomic<unsigned> serial{0};
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(getpid())) + "." +
                          std::to_string(serial.fetch_add(1));
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *why = "cannot create " + tmp + ": " + std::strerror(errno);
    return false;
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *why = "cannot write " + tmp + ": " + std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    *why = "cannot flush " + tmp + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *why = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

TuneTable::TuneTable(const std::vector<TuneEntry>& entries) {
  std::size_t cap = 16;
  while (cap < 2 * entries.size()) cap *= 2;
  slots_.resize(cap);
  mask_ = cap - 1;
  for (const TuneEntry& e : entries) {
    std::uint64_t i = tune_hash(e.op, e.key) & mask_;
    while (slots_[i].op >= 0 && (slots_[i].op != e.op || slots_[i].key != e.key))
      i = (i + 1) & mask_;
    if (slots_[i].op < 0) ++size_;
    slots_[i].key = e.key;
    slots_[i].op = static_cast<std::int16_t>(e.op);
    slots_[i].choice = pack_choice(e.variant, e.config);
  }
}

int TuneTable::find(gpuopt_op_t op, const TuneKey& key) const {
  for (std::uint64_t i = tune_hash(op, key) & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.op < 0) return -1;
    if (s.op == op && s.key == key) return s.choice;
  }
}

void TuneCache::publish_locked() {
  if (entries_.empty()) {
    table_.store(nullptr, std::memory_order_release);
    return;
  }
  published_.push_back(std::make_unique<const TuneTable>(entries_));
  table_.store(published_.back().get(), std::memory_order_release);
}

void TuneCache::attach(const char* path, const TuneStamp& stamp) {
  std::lock_guard<std::mutex> lock(mu_);
  path_ = path ? path : "";
  stamp_ = stamp;
  entries_.clear();
  recorded_.clear();
  if (path) {
    std::string text, why;
    bool missing = false;
    if (!read_file(path_, &text, &missing, &why)) {
      if (missing)
        log(LogLevel::info, "tuning cache %s: no file yet (empty cache; gpuopt_tune writes it)",
            path);
      else
        log(LogLevel::info, "tuning cache %s ignored: %s", path, why.c_str());
    } else if (!parse_tune_cache(text, stamp_, &entries_, &why)) {
      log(LogLevel::info, "tuning cache %s ignored: %s; dispatch uses the built-in rules", path,
          why.c_str());
    } else {
      log(LogLevel::info, "tuning cache %s: %zu classes", path, entries_.size());
    }
  }
  publish_locked();
}

bool TuneCache::record(const TuneEntry& e, std::string* why) {
  std::lock_guard<std::mutex> lock(mu_);
  put(&recorded_, e);
  put(&entries_, e);
  bool ok = true;
  if (!path_.empty()) {
    // Merge with what the file holds now, so that processes tuning other classes into the same
    // file keep each other's entries; ours win for the classes we measured.
    std::string text, ignored;
    bool missing = false;
    std::vector<TuneEntry> now;
    if (read_file(path_, &text, &missing, &ignored) &&
        parse_tune_cache(text, stamp_, &now, &ignored)) {
      for (const TuneEntry& r : recorded_) put(&now, r);
      entries_ = std::move(now);
    }
    ok = write_file_atomically(path_, format_tune_cache(stamp_, entries_), why);
  }
  publish_locked();
  return ok;
}

int TuneCache::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(entries_.size());
}

}  // namespace gpuopt
