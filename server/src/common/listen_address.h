// The listening address, for the log: its host part, and why binding it failed.
#pragma once

#include <string>

namespace hotel {

// Why binding address ("host:port", "[v6]:port") failed: gRPC only says that it did. Binds a
// plain socket the way gRPC would (minus SO_REUSEPORT); while another process holds the port this
// is EADDRINUSE's message.
std::string ListenError(const std::string& address);

// "host:port" of address with the port the server was given (address may ask for port 0).
std::string BoundAddress(const std::string& address, int port);

}  // namespace hotel
