# frozen_string_literal: true

# ruby-highcard: a Hollywood Gin bot in Ruby, serving hollywood.bot.v1.BotService with
# Debian's ruby-grpc. The stubs are generated from proto/ into gen/ by ./build.sh.
#
# The server's settings matter (docs/bot-guide.md, "An interpreter the base image
# lacks"): grpc-ruby answers RESOURCE_EXHAUSTED ("No free threads in thread pool")
# when more calls wait than max_waiting_requests, which its defaults reach when
# notifications and the next Decide arrive back to back on a loaded machine.

$LOAD_PATH.unshift(File.join(__dir__, 'gen'))
$LOAD_PATH.unshift(__dir__)
require 'grpc'
require 'hollywood/bot/v1/bot_services_pb'
require 'policy'

Bot = Hollywood::Bot::V1

# The bot's service: the handshake says what the arena named it.
class HighcardService < Bot::BotService::Service
  def handshake(_request, _call)
    Bot::HandshakeResponse.new(
      name: ENV.fetch('HOLLYWOOD_BOT_NAME', 'ruby-highcard'),
      version: ENV.fetch('HOLLYWOOD_BOT_VERSION', '1.0.0'),
      protocol_version: 1, author: 'Hollywood Gin Arena'
    )
  end

  def decide(request, _call)
    chosen = Highcard.choose(request.legal_actions.to_a)
    Bot::DecideResponse.new(action: Bot::Action.new(kind: chosen.kind, card: chosen.card))
  end

  def hand_ended(_request, _call)
    Bot::HandEndedResponse.new
  end

  def series_ended(_request, _call)
    Bot::SeriesEndedResponse.new
  end
end

def address
  socket = ENV.fetch('HOLLYWOOD_BOT_SOCKET', '')
  return "unix:#{socket}" unless socket.empty?

  ENV.fetch('HOLLYWOOD_BOT_ADDRESS', '127.0.0.1:50051')
end

# One call at a time is all the arena makes, but a few threads and a deep queue keep
# a late notification from refusing the next Decide.
server = GRPC::RpcServer.new(pool_size: 4, max_waiting_requests: 64)
server.add_http2_port(address, :this_port_is_insecure)
server.handle(HighcardService)
%w[TERM INT].each { |signal| trap(signal) { Thread.new { server.stop } } }
warn "ruby-highcard listening on #{address}"
server.run_till_terminated_or_interrupted(%w[EXIT])
