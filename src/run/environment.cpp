#include "openloop/run/environment.hpp"

#include <boost/version.hpp>

#include <ctime>
#include <string>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

namespace openloop {

namespace json = boost::json;

boost::json::object environment_info() {
    json::object env;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    env["hostname"] = host;
    env["cpus"] = std::thread::hardware_concurrency();
    utsname u{};
    if (uname(&u) == 0) env["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
    env["openloop_version"] = OPENLOOP_VERSION;
    env["boost_version"] = BOOST_LIB_VERSION;
    env["compiler"] = __VERSION__;
    const std::time_t now = std::time(nullptr);
    char iso[32];
    std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    env["started_at"] = iso;
    return env;
}

}  // namespace openloop
