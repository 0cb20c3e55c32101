// The tuning cache's file format and table (src/runtime/tune_cache.*), host-only: a file written
// is read back identical; a file stamped for another gpuopt version, device or driver is stale;
// malformed files are refused with a reason naming the line; the write is atomic (no temporary
// left, an existing file replaced whole); the table finds every entry and nothing else; a context
// ignores a stale file with one log line. Format 2's run-time configurations ("-> variant:config")
// round-trip, format 1 files still parse, and a configuration a rung does not have runs its rule.
#include "runtime/tune_cache.hpp"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/registry.hpp"

namespace {

using gpuopt::TuneEntry;
using gpuopt::TuneKey;
using gpuopt::TuneStamp;

TuneStamp stamp() {
  TuneStamp s;
  s.gpuopt = gpuopt_version_string();
  s.device = "NVIDIA H100 80GB HBM3";
  s.cc = 90;
  s.sms = 132;
  s.driver = 13000;
  return s;
}

int variant(gpuopt_op_t op, const char* name) {
  return gpuopt::find_variant(*gpuopt::op_table(op), name);
}

TuneEntry gemm_entry(std::int16_t log2n, const char* name, double ms) {
  TuneEntry e;
  e.op = GPUOPT_OP_GEMM;
  e.key = TuneKey{
      {GPUOPT_DTYPE_F32, GPUOPT_DTYPE_F32, GPUOPT_COMPUTE_TF32, 0, 1, log2n, log2n, log2n, 1, 1}};
  e.variant = variant(GPUOPT_OP_GEMM, name);
  e.ms = ms;
  return e;
}

std::vector<TuneEntry> sample() {
  TuneEntry r;
  r.op = GPUOPT_OP_REDUCE;
  r.key = TuneKey{{GPUOPT_REDUCE_SUM, GPUOPT_DTYPE_I32, 0, 1, 8, 23}};
  r.variant = variant(GPUOPT_OP_REDUCE, "cub");
  r.ms = 0.125;
  TuneEntry lt = gemm_entry(15, "cublaslt", 1.5);
  lt.config = 3;  // algo3
  TuneEntry sm90 = gemm_entry(16, "sm90_tma_wgmma", 9.25);
  sm90.config = 1;  // coop_c2
  return {gemm_entry(14, "cublas", 2.75), gemm_entry(13, "naive", 0.5), r, lt, sm90};
}

// Parse result: ok, entries, reason.
struct Parsed {
  bool ok;
  std::vector<TuneEntry> entries;
  std::string why;
};
Parsed parse(const std::string& text, const TuneStamp& want = stamp()) {
  Parsed p;
  p.ok = gpuopt::parse_tune_cache(text, want, &p.entries, &p.why);
  return p;
}

// The sample file with line `from` (a prefix) replaced by `to`.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = gpuopt::format_tune_cache(stamp(), sample());
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  const std::size_t end = text.find('\n', at);
  return text.replace(at, end - at, to);
}

std::string temp_dir() {
  char tmpl[] = "/tmp/gpuopt-tune-test-XXXXXX";
  const char* d = mkdtemp(tmpl);
  EXPECT_NE(d, nullptr);
  return d ? d : "/tmp";
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(d);
  }
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(TuneCacheFormat, RoundTripsEveryField) {
  const std::string text = gpuopt::format_tune_cache(stamp(), sample());
  EXPECT_EQ(text.rfind("gpuopt-tune-cache 2\n", 0), 0u) << text;
  EXPECT_NE(text.find("device NVIDIA H100 80GB HBM3\n"), std::string::npos);
  EXPECT_NE(text.find("driver 13000\n"), std::string::npos);
  EXPECT_NE(text.find("gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 "
                      "align16=1 -> naive 0.5\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("align16=1 -> cublaslt:algo3 1.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("align16=1 -> sm90_tma_wgmma:coop_c2 9.25\n"), std::string::npos) << text;
  const Parsed p = parse(text);
  ASSERT_TRUE(p.ok) << p.why;
  ASSERT_EQ(p.entries.size(), sample().size());
  for (const TuneEntry& want : sample()) {
    bool found = false;
    for (const TuneEntry& got : p.entries) {
      if (got.op == want.op && got.key == want.key) {
        found = true;
        EXPECT_EQ(got.variant, want.variant);
        EXPECT_EQ(got.config, want.config);
        EXPECT_DOUBLE_EQ(got.ms, want.ms);
      }
    }
    EXPECT_TRUE(found) << gpuopt::format_tune_entry(want);
  }
  // Written again, the text is the same (sorted: stable files).
  EXPECT_EQ(gpuopt::format_tune_cache(stamp(), p.entries), text);
}

TEST(TuneCacheFormat, CommentsBlankLinesAndCrlfAreFine) {
  std::string text = gpuopt::format_tune_cache(stamp(), sample());
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_TRUE(parse("# hand-edited\n\n" + crlf).ok);
}

TEST(TuneCacheFormat, StaleStampsAreRefusedNamingWhatDiffers) {
  const std::string text = gpuopt::format_tune_cache(stamp(), sample());
  TuneStamp other = stamp();
  other.driver = 12080;
  Parsed p = parse(text, other);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.why.find("driver 13000"), std::string::npos) << p.why;
  EXPECT_NE(p.why.find("stale"), std::string::npos) << p.why;
  EXPECT_TRUE(p.entries.empty());

  other = stamp();
  other.device = "NVIDIA H200";
  p = parse(text, other);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.why.find("NVIDIA H200"), std::string::npos) << p.why;

  other = stamp();
  other.sms = 114;
  EXPECT_FALSE(parse(text, other).ok);
  other = stamp();
  other.cc = 80;
  EXPECT_FALSE(parse(text, other).ok);

  other = stamp();
  other.gpuopt = "9.9.9";
  p = parse(text, other);
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.why.find("gpuopt"), std::string::npos) << p.why;

  p = parse(edited("gpuopt-tune-cache 2", "gpuopt-tune-cache 3"));
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.why.find("format 3"), std::string::npos) << p.why;
  p = parse(edited("gpuopt-tune-cache 2", "gpuopt-tune-cache 0"));
  EXPECT_FALSE(p.ok);
  EXPECT_NE(p.why.find("format 0"), std::string::npos) << p.why;
}

// A format-1 file (before configurations: "-> variant ms") still parses, every entry under its
// rung's own rule; written again it is format 1 again (no entry has a configuration).
TEST(TuneCacheFormat, FormatOneFilesStillParseAsTheRungsOwnRule) {
  std::vector<TuneEntry> v1 = sample();
  for (TuneEntry& e : v1) e.config = -1;
  std::string text = gpuopt::format_tune_cache(stamp(), v1);
  ASSERT_EQ(text.find(':'), std::string::npos) << "a format-1 body names no configuration";
  text.replace(0, text.find('\n'), "gpuopt-tune-cache 1");
  const Parsed p = parse(text);
  ASSERT_TRUE(p.ok) << p.why;
  ASSERT_EQ(p.entries.size(), v1.size());
  for (const TuneEntry& e : p.entries) EXPECT_EQ(e.config, -1) << gpuopt::format_tune_entry(e);
  std::string again = gpuopt::format_tune_cache(stamp(), p.entries);
  EXPECT_EQ(again.rfind("gpuopt-tune-cache 1\n", 0), 0u)
      << "entries without a configuration are written in format 1, which older readers take";
  EXPECT_EQ(again.substr(again.find('\n')), text.substr(text.find('\n')));
}

// A configuration the rung does not have (another gpuopt's name, a hand edit, a variant without
// configurations) is not an error: the entry stays, under the rung's own rule. An unknown variant
// still makes the file malformed.
TEST(TuneCacheFormat, UnknownConfigurationFallsBackToTheRungsOwnRule) {
  const std::string line =
      "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 align16=1 -> naive 0.5";
  const std::string head =
      "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 align16=1 -> ";
  for (const char* target : {"cublaslt:algo9", "sm90_tma_wgmma:pingpong_c4", "naive:fast",
                             "cublaslt:", "cublas:algo1"}) {
    const Parsed p = parse(edited(line, head + target + " 0.5"));
    ASSERT_TRUE(p.ok) << target << ": " << p.why;
    bool found = false;
    for (const TuneEntry& e : p.entries) {
      if (e.key.f[5] != 13) continue;  // the edited class (m=2^12)
      found = true;
      const std::string variant = std::string(target).substr(0, std::string(target).find(':'));
      EXPECT_EQ(e.variant, gpuopt::find_variant(*gpuopt::op_table(GPUOPT_OP_GEMM), variant.c_str()))
          << target;
      EXPECT_EQ(e.config, -1) << target;
    }
    EXPECT_TRUE(found) << target;
  }
  const Parsed bad = parse(edited(line, head + "warp_drive:coop_c1 0.5"));
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.why.find("no gemm variant 'warp_drive:coop_c1'"), std::string::npos) << bad.why;
}

// Every configuration name of the two rungs that declare some parses back to its index.
TEST(TuneCacheFormat, EveryDeclaredConfigurationRoundTrips) {
  const gpuopt::OpTable& t = *gpuopt::op_table(GPUOPT_OP_GEMM);
  int rungs = 0;
  for (int v = 0; v < t.count; ++v) {
    const gpuopt::VariantConfigs& c = t.meta(v).configs;
    rungs += c.count > 0;
    for (int i = 0; i < c.count; ++i) {
      TuneEntry e = gemm_entry(12, t.meta(v).name, 1.0);
      e.config = i;
      const Parsed p = parse(gpuopt::format_tune_cache(stamp(), {e}));
      ASSERT_TRUE(p.ok) << p.why;
      ASSERT_EQ(p.entries.size(), 1u);
      EXPECT_EQ(p.entries[0].variant, v);
      EXPECT_EQ(p.entries[0].config, i) << t.meta(v).name << ":" << c.names[i];
    }
  }
  EXPECT_EQ(rungs, 2) << "sm90_tma_wgmma and cublaslt declare configurations";
}

TEST(TuneCacheFormat, MalformedFilesAreRefusedNamingTheLine) {
  struct Case {
    std::string text, reason;
  };
  const std::string good_line =
      "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 align16=1 -> naive 0.5";
  const Case cases[] = {
      {"", "empty file"},
      {"hello\n", "not a gpuopt tuning cache"},
      {"gpuopt-tune-cache 1\ngpuopt 0.1.0\n", "header ends early"},
      {edited("cc ", "cc ninety"), "integers"},
      {edited("device ", "devices x"), "expected 'device"},
      {edited(good_line, "gemv a=f32 -> naive 1"), "unknown op"},
      {edited(good_line, "gemm a=f32 -> naive 1"), "fields"},
      {edited(good_line,
              "gemm a=f33 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 "
              "align16=1 -> naive 0.5"),
       "a=f33"},
      {edited(good_line,
              "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=4096 n=2^12 k=2^12 batch=2^0 "
              "align16=1 -> naive 0.5"),
       "m=4096"},
      {edited(good_line,
              "gemm a=f32 c=f32 compute=2 tb=1 ta=0 m=2^12 n=2^12 k=2^12 batch=2^0 "
              "align16=1 -> naive 0.5"),
       "expected ta="},
      {edited(good_line,
              "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 "
              "align16=1 => naive 0.5"),
       "'->'"},
      {edited(good_line,
              "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 "
              "align16=1 -> warp_drive 0.5"),
       "no gemm variant 'warp_drive'"},
      {edited(good_line,
              "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 "
              "align16=1 -> naive fast"),
       "milliseconds"},
      {edited(good_line,
              "gemm a=f32 c=f32 compute=2 ta=0 tb=1 m=2^12 n=2^12 k=2^12 batch=2^0 "
              "align16=1 -> naive -1"),
       "milliseconds"},
      {edited(good_line, good_line + "\n" + good_line), "second entry"},
  };
  for (const Case& c : cases) {
    const Parsed p = parse(c.text);
    EXPECT_FALSE(p.ok) << c.text;
    EXPECT_NE(p.why.find(c.reason), std::string::npos) << "why: " << p.why << "\ntext:\n" << c.text;
    EXPECT_TRUE(p.entries.empty());
  }
  // The line number points at the bad line.
  const Parsed p = parse(edited(good_line, "gemv"));
  EXPECT_EQ(p.why.rfind("line ", 0), 0u) << p.why;
}

TEST(TuneCacheFile, AtomicWriteReplacesWholeAndLeavesNoTemporary) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/h100.cache";
  std::string why;
  ASSERT_TRUE(gpuopt::write_file_atomically(path, "first\n", &why)) << why;
  EXPECT_EQ(slurp(path), "first\n");
  const std::string text = gpuopt::format_tune_cache(stamp(), sample());
  ASSERT_TRUE(gpuopt::write_file_atomically(path, text, &why)) << why;
  EXPECT_EQ(slurp(path), text);
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"h100.cache"});
  // A directory that does not exist: a reason, nothing written.
  EXPECT_FALSE(gpuopt::write_file_atomically(dir + "/no/such/dir/x.cache", text, &why));
  EXPECT_NE(why.find("cannot create"), std::string::npos) << why;
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

TEST(TuneCacheTable, FindsEveryEntryAndNothingElse) {
  std::vector<TuneEntry> entries;
  for (std::int16_t m = 1; m < 40; ++m) {
    for (std::int16_t k = 1; k < 12; ++k) {
      TuneEntry e = gemm_entry(13, "cublas", 1.0);
      e.key.f[5] = m;
      e.key.f[7] = k;
      e.variant = (m + k) % 8;
      e.config = (m * k) % 5 - 1;  // -1 (the rung's rule) .. 3
      entries.push_back(e);
    }
  }
  const gpuopt::TuneTable t(entries);
  EXPECT_EQ(t.size(), static_cast<int>(entries.size()));
  for (const TuneEntry& e : entries) {
    const int found = t.find(e.op, e.key);
    EXPECT_EQ(gpuopt::choice_variant(found), e.variant);
    EXPECT_EQ(gpuopt::choice_config(found), e.config);
  }
  TuneKey missing = entries[0].key;
  missing.f[5] = 50;
  EXPECT_EQ(t.find(GPUOPT_OP_GEMM, missing), -1);
  EXPECT_EQ(t.find(GPUOPT_OP_REDUCE, entries[0].key), -1);  // same fields, other op
  EXPECT_EQ(gpuopt::TuneTable({}).find(GPUOPT_OP_GEMM, missing), -1);
}

TEST(TuneKeyClasses, Log2ClassesSplitAtPowersOfTwo) {
  EXPECT_EQ(gpuopt::tune_log2_class(0), 0);
  EXPECT_EQ(gpuopt::tune_log2_class(1), 1);
  EXPECT_EQ(gpuopt::tune_log2_class(4095), 12);
  EXPECT_EQ(gpuopt::tune_log2_class(4096), 13);
  EXPECT_EQ(gpuopt::tune_log2_class(8191), 13);
  EXPECT_EQ(gpuopt::tune_log2_class(INT64_MAX), 63);
}

struct LogLines {
  std::mutex mu;
  std::vector<std::string> lines;
};
void collect(gpuopt_log_level_t, const char* message, void* user) {
  auto* l = static_cast<LogLines*>(user);
  std::lock_guard<std::mutex> lock(l->mu);
  l->lines.emplace_back(message);
}

TEST(TuneCacheAttach, StaleOrMalformedFileIsIgnoredWithOneLogLine) {
  const std::string dir = temp_dir();
  const std::string path = dir + "/stale.cache";
  TuneStamp old = stamp();
  old.driver = 12000;
  std::string why;
  ASSERT_TRUE(gpuopt::write_file_atomically(path, gpuopt::format_tune_cache(old, sample()), &why));

  gpuopt_log_level_t level = GPUOPT_LOG_OFF;
  ASSERT_EQ(gpuopt_get_log_level(&level), GPUOPT_SUCCESS);
  LogLines log;
  ASSERT_EQ(gpuopt_set_log_level(GPUOPT_LOG_INFO), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_callback(collect, &log), GPUOPT_SUCCESS);

  gpuopt::TuneCache cache;
  cache.attach(path.c_str(), stamp());
  EXPECT_EQ(cache.table(), nullptr);
  EXPECT_EQ(cache.entries(), 0);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_NE(log.lines[0].find("ignored"), std::string::npos) << log.lines[0];
  EXPECT_NE(log.lines[0].find("driver 12000"), std::string::npos) << log.lines[0];

  // The same file, current: loaded.
  ASSERT_TRUE(
      gpuopt::write_file_atomically(path, gpuopt::format_tune_cache(stamp(), sample()), &why));
  cache.attach(path.c_str(), stamp());
  EXPECT_EQ(cache.entries(), static_cast<int>(sample().size()));
  ASSERT_NE(cache.table(), nullptr);
  EXPECT_EQ(cache.table()->find(GPUOPT_OP_GEMM, sample()[1].key), sample()[1].variant);
  EXPECT_EQ(cache.table()->find(GPUOPT_OP_GEMM, sample()[4].key),
            gpuopt::pack_choice(sample()[4].variant, 1))
      << "sm90_tma_wgmma:coop_c2";

  // Garbage: ignored again, one more line; the earlier entries are gone.
  ASSERT_TRUE(gpuopt::write_file_atomically(path, "garbage\n", &why));
  cache.attach(path.c_str(), stamp());
  EXPECT_EQ(cache.entries(), 0);
  EXPECT_EQ(cache.table(), nullptr);
  EXPECT_EQ(log.lines.size(), 3u);

  // record() on the ignored file rewrites it, current and with the new entry only.
  ASSERT_TRUE(cache.record(sample()[0], &why)) << why;
  std::vector<TuneEntry> back;
  ASSERT_TRUE(gpuopt::parse_tune_cache(slurp(path), stamp(), &back, &why)) << why;
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].key, sample()[0].key);

  // A second cache on the same file keeps the first one's entry when it records its own.
  gpuopt::TuneCache other;
  other.attach(path.c_str(), stamp());
  ASSERT_TRUE(cache.record(sample()[1], &why)) << why;  // the file has two entries now
  ASSERT_TRUE(other.record(sample()[2], &why)) << why;  // merged: three
  ASSERT_TRUE(gpuopt::parse_tune_cache(slurp(path), stamp(), &back, &why)) << why;
  EXPECT_EQ(back.size(), 3u);
  EXPECT_EQ(other.entries(), 3);

  // Detached: nothing cached.
  cache.attach(nullptr, stamp());
  EXPECT_EQ(cache.entries(), 0);
  EXPECT_EQ(cache.table(), nullptr);

  ASSERT_EQ(gpuopt_set_log_callback(nullptr, nullptr), GPUOPT_SUCCESS);
  ASSERT_EQ(gpuopt_set_log_level(level), GPUOPT_SUCCESS);
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
