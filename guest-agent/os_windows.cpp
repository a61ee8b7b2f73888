// Windows side of os.hpp: Win32 calls only (KERNEL32, ntdll, WS2_32), no C runtime POSIX layer.
#include <windows.h>
#include <winsock2.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "guest-agent/os.hpp"
#include "guest-agent/windows_support.hpp"

namespace topolab::agent::win {

std::wstring widen(std::string_view utf8) {
  if (utf8.empty()) return {};
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring out(static_cast<std::size_t>(std::max(n, 0)), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), out.data(), n);
  return out;
}

std::string narrow(std::wstring_view wide) {
  if (wide.empty()) return {};
  int n = WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), nullptr, 0,
                              nullptr, nullptr);
  std::string out(static_cast<std::size_t>(std::max(n, 0)), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), out.data(), n,
                      nullptr, nullptr);
  return out;
}

std::string error_text(const char* call, unsigned long code) {
  wchar_t* text = nullptr;
  DWORD n = FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string message = n && text ? narrow(std::wstring_view(text, n)) : "";
  if (text) LocalFree(text);
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r' ||
                              message.back() == ' ' || message.back() == '.'))
    message.pop_back();
  return std::string(call) + ": " + (message.empty() ? "failed" : message) + " (error " +
         std::to_string(code) + ")";
}

std::string last_error(const char* call) { return error_text(call, GetLastError()); }

std::string windows_version() {
  using RtlGetVersionFn = LONG(WINAPI*)(OSVERSIONINFOW*);
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  auto fn = ntdll ? reinterpret_cast<RtlGetVersionFn>(
                        reinterpret_cast<void*>(GetProcAddress(ntdll, "RtlGetVersion")))
                  : nullptr;
  OSVERSIONINFOW v{};
  v.dwOSVersionInfoSize = sizeof(v);
  if (!fn || fn(&v) != 0) return "Windows";
  return "Windows " + std::to_string(v.dwMajorVersion) + "." + std::to_string(v.dwMinorVersion) +
         "." + std::to_string(v.dwBuildNumber);
}

}  // namespace topolab::agent::win

namespace topolab::agent::os {

namespace {

// The active CPUs of `group` as a mask (bits 0..count-1: Windows fills groups from bit 0).
KAFFINITY group_active_mask(WORD group) {
  DWORD count = GetActiveProcessorCount(group);
  if (count >= 64) return ~KAFFINITY{0};
  return (KAFFINITY{1} << count) - 1;
}

}  // namespace

void process_setup() {
  // No "program stopped working" dialogs in an unattended guest.
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
  WSADATA data;
  WSAStartup(MAKEWORD(2, 2), &data);
}

namespace {
std::mutex g_hook_mu;
std::function<void()> g_hook;  // guarded by g_hook_mu
}  // namespace

// No signals to catch: the service's stop control runs it (win::run_termination_hook).
void set_termination_hook(std::function<void()> before_exit) {
  std::lock_guard lock(g_hook_mu);
  g_hook = std::move(before_exit);
}

Result<void*> map_memory(std::size_t bytes) {
  void* m = VirtualAlloc(nullptr, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  if (!m) {
    return make_error(
        ErrorKind::io,
        win::last_error(("VirtualAlloc " + std::to_string(bytes) + " bytes").c_str()));
  }
  return m;
}

void unmap_memory(void* address, std::size_t) {
  if (address) VirtualFree(address, 0, MEM_RELEASE);
}

std::size_t page_size() {
  SYSTEM_INFO si;
  GetSystemInfo(&si);
  return si.dwPageSize;
}

CpuList allowed_cpus() {
  USHORT groups[64];
  USHORT count = 64;
  // wine 8 does not implement GetProcessGroupAffinity: then the process is in group 0.
  const bool have_groups =
      GetProcessGroupAffinity(GetCurrentProcess(), &count, groups) && count > 0;
  if (!have_groups) {
    groups[0] = 0;
    count = 1;
  }
  DWORD_PTR process_mask = 0, system_mask = 0;
  const bool one_group =
      count == 1 && GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask);
  CpuList out;
  for (USHORT i = 0; i < count; ++i) {
    // A process spanning several groups (Windows 11) may use every active CPU of each.
    KAFFINITY mask = one_group ? process_mask : group_active_mask(groups[i]);
    for (int bit = 0; bit < 64; ++bit) {
      if (mask & (KAFFINITY{1} << bit)) out.insert(groups[i] * 64 + bit);
    }
  }
  return out.empty() ? CpuList{0} : out;
}

Result<void> pin_current_thread(const CpuList& cpus) {
  if (cpus.empty()) return make_error(ErrorKind::input, "cannot pin to an empty CPU set");
  GROUP_AFFINITY a{};
  a.Group = static_cast<WORD>(cpus.first() / 64);
  for (int id : cpus) {
    if (id < 0 || id / 64 != a.Group) {
      return make_error(ErrorKind::input,
                        "cannot pin to CPUs " + cpus.to_string() +
                            ": Windows pins a thread within one processor group of 64 CPUs");
    }
    a.Mask |= KAFFINITY{1} << (id % 64);
  }
  if (!SetThreadGroupAffinity(GetCurrentThread(), &a, nullptr)) {
    return make_error(
        ErrorKind::io,
        win::last_error(("SetThreadGroupAffinity(" + cpus.to_string() + ")").c_str()));
  }
  // The new affinity applies at the next scheduling decision: yield so the thread is on one of
  // its CPUs before the caller starts timing.
  SwitchToThread();
  return {};
}

int current_cpu() {
  PROCESSOR_NUMBER n{};
  GetCurrentProcessorNumberEx(&n);
  return n.Group * 64 + n.Number;
}

void cheap_kernel_call() {
  // A signalled manual-reset event: the wait returns at once, but only after entering the
  // kernel (NtWaitForSingleObject); nothing in user mode caches an event's state.
  static const HANDLE event = CreateEventW(nullptr, TRUE, TRUE, nullptr);
  WaitForSingleObject(event, 0);
}

const char* cheap_kernel_call_name() {
  return "WaitForSingleObject(signalled event, 0) = NtWaitForSingleObject";
}

Result<std::string> self_executable() {
  std::wstring path(32768, L'\0');
  DWORD n = GetModuleFileNameW(nullptr, path.data(), static_cast<DWORD>(path.size()));
  if (n == 0 || n >= path.size())
    return make_error(ErrorKind::io, win::last_error("GetModuleFileNameW"));
  path.resize(n);
  return win::narrow(path);
}

std::optional<std::string> read_proc_stat() { return std::nullopt; }

}  // namespace topolab::agent::os

namespace topolab::agent::win {

void run_termination_hook() {
  std::lock_guard lock(os::g_hook_mu);
  if (os::g_hook) os::g_hook();
}

}  // namespace topolab::agent::win
