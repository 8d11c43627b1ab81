package dev.tern.transport.udp.sim;

import dev.tern.netlab.link.Link;
import dev.tern.netlab.link.LinkProfile;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionConfig;
import dev.tern.transport.udp.packet.Versions;
import dev.tern.transport.udp.frame.AckFrame;
import dev.tern.transport.udp.frame.ConnectionCloseFrame;
import dev.tern.transport.udp.frame.CryptoFrame;
import dev.tern.transport.udp.frame.DataBlockedFrame;
import dev.tern.transport.udp.frame.FrameHandler;
import dev.tern.transport.udp.frame.FrameReader;
import dev.tern.transport.udp.frame.MaxDataFrame;
import dev.tern.transport.udp.frame.MaxStreamDataFrame;
import dev.tern.transport.udp.frame.MaxStreamsFrame;
import dev.tern.transport.udp.frame.NewConnectionIdFrame;
import dev.tern.transport.udp.frame.PathChallengeFrame;
import dev.tern.transport.udp.frame.PathResponseFrame;
import dev.tern.transport.udp.frame.ResetStreamFrame;
import dev.tern.transport.udp.frame.StopSendingFrame;
import dev.tern.transport.udp.frame.StreamDataBlockedFrame;
import dev.tern.transport.udp.frame.StreamFrame;
import dev.tern.transport.udp.packet.ConnectionId;
import dev.tern.transport.udp.packet.PacketHeader;
import dev.tern.transport.udp.packet.PacketNumber;
import dev.tern.transport.udp.packet.PlaintextProtection;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

/**
 * A diagnostic, not a test: replays one seeded run as {@link SimRun} does and prints every
 * datagram each way with its frames, the sender's window and bytes in flight, and whether and
 * when it arrived. Arguments: profile scenario seed [untilMs], where the scenario may also be
 * {@code first-call} or {@code warm-call} (the calls of the two recovery-speed tests). The
 * system property {@code tern.trace.noHandshakeCopy=true} turns the handshake copy off.
 */
public final class SimTrace {
  private SimTrace() {}

  /** Entry point. */
  public static void main(String[] args) {
    String profileName = args[0];
    long seed = Long.parseLong(args[2]);
    long untilNs = args.length > 3 ? Long.parseLong(args[3]) * 1_000_000L : Long.MAX_VALUE;
    List<Call> calls = new java.util.ArrayList<>();
    if (args[1].equals("first-call")) {
      calls.add(new Call(0, 1024, 1024)); // FirstCallRecoverySpeedTest's call
    } else if (args[1].equals("warm-call")) {
      for (int k = 0; k <= 5; k++) {
        calls.add(new Call(k * 2_000_000_000L, 1024, 1024)); // RecoverySpeedTest's calls
      }
    } else {
      calls = Scenario.of(args[1]).calls(new Random(seed));
    }
    LinkProfile profile = SimProfiles.get(profileName);
    long upSeed = seed * 31 + 1;
    long downSeed = seed * 31 + 2;
    Tracer up = new Tracer("UP", new LinkChannel(new Link(profile.clientToServer(), upSeed, 0)),
        untilNs);
    Tracer down = new Tracer("DN",
        new LinkChannel(new Link(profile.serverToClient(), downSeed, 0)), untilNs);
    // The trace reads frames off the wire: plaintext version 1, whose packets differ only in
    // their protection (docs/protocol.md §9).
    ConnectionConfig config = ConnectionConfig.builder().versions(Versions.V1)
        .handshakeCopy(!Boolean.getBoolean("tern.trace.noHandshakeCopy")).build();
    Simulation sim = new Simulation(seed, up, down, config, config, calls);
    long rebindMs = Long.getLong("tern.trace.rebindMs", -1);
    if (rebindMs >= 0) {
      sim.rebindAt(rebindMs * 1_000_000L); // as sim.sh --rebind-ms
    }
    up.sender = sim::client;
    down.sender = sim::server;
    IdealTransfer ideal = new IdealTransfer(profile, upSeed, downSeed);
    System.out.printf("ideal=%.1fms calls=%d%n", ideal.of(calls) / 1e6, calls.size());
    for (Call c : calls) {
      System.out.printf("  call start=%.1fms req=%d resp=%d urg=%d%n", c.startNs / 1e6,
          c.requestBytes, c.responseBytes, c.urgency);
    }
    sim.runUntil(sim::allCallsDone, SimRun.CALL_LIMIT_NS);
    for (Call c : calls) {
      System.out.printf("  call start=%.1fms stream=%d done=%.1fms%n", c.startNs / 1e6,
          c.streamId(), c.doneNs() / 1e6);
    }
  }

  private static final class Tracer implements Channel, FrameHandler {
    final String name;
    final LinkChannel inner;
    final long untilNs;
    java.util.function.Supplier<Connection> sender;
    final PacketHeader header = new PacketHeader();
    final FrameReader reader = new FrameReader();
    final StringBuilder sb = new StringBuilder();
    long largestPn = -1;

    Tracer(String name, LinkChannel inner, long untilNs) {
      this.name = name;
      this.inner = inner;
      this.untilNs = untilNs;
    }

    @Override
    public int transmit(long nowNs, ByteBuffer datagram, long[] deliverAtNs, boolean[] corrupt) {
      sb.setLength(0);
      ByteBuffer copy = datagram.duplicate();
      int offset = copy.position();
      while (offset < copy.limit() && header.parse(copy, offset, ConnectionId.V1_LENGTH)) {
        long pn = PacketNumber.decode(largestPn, header.truncatedPn, 8 * header.pnLength);
        largestPn = Math.max(largestPn, pn);
        sb.append(header.type == null ? "?" : header.type.name().charAt(0)).append("#")
            .append(pn).append(' ');
        ByteBuffer payload = copy.duplicate();
        payload.limit(header.packetEnd - PlaintextProtection.TRAILER_BYTES);
        payload.position(header.payloadOffset());
        reader.read(payload.slice(), this);
        offset = header.packetEnd;
      }
      int size = datagram.remaining();
      int copies = inner.transmit(nowNs, datagram, deliverAtNs, corrupt);
      if (nowNs <= untilNs) {
        Connection c = sender.get();
        String st = c == null ? "" : String.format(" cwnd=%d srtt=%.0f rate=%d%s",
            c.congestionController().congestionWindowBytes(), c.rtt().smoothedRttNs() / 1e6,
            c.congestionController().pacingRateBytesPerSecond(c.rtt()),
            c.congestionController() instanceof dev.tern.transport.udp.congestion.Bbr b
                ? " " + b.mode() + " bw=" + b.bandwidthEstimateBytesPerSecond() : "");
        String fate = copies == 0 ? "LOST"
            : (corrupt[0] ? "CORRUPT@" : "@") + String.format("%.1f", deliverAtNs[0] / 1e6)
                + (copies > 1 ? "+dup" : "");
        System.out.printf("%9.1f %s %4d %s%s %s%n", nowNs / 1e6, name, size, fate, st, sb);
      }
      return copies;
    }

    @Override public void onPing() { sb.append("PING "); }
    @Override public void onAck(AckFrame f) {
      sb.append("ACK[");
      for (int r = 0; r < Math.min(f.rangeCount, 4); r++) {
        sb.append(f.smallest[r]).append('-').append(f.largest[r]).append(r + 1 < f.rangeCount ? "," : "");
      }
      sb.append(f.rangeCount > 4 ? "..]" : "] ");
    }
    @Override public void onStream(StreamFrame f) {
      sb.append("S").append(f.streamId).append(':').append(f.offset).append('+').append(f.length)
          .append(f.fin ? "F " : " ");
    }
    @Override public void onCrypto(CryptoFrame f) { sb.append("CRYPTO "); }
    @Override public void onResetStream(ResetStreamFrame f) { sb.append("RESET "); }
    @Override public void onStopSending(StopSendingFrame f) { sb.append("STOP "); }
    @Override public void onMaxData(MaxDataFrame f) { sb.append("MAXDATA "); }
    @Override public void onMaxStreamData(MaxStreamDataFrame f) { sb.append("MAXSD "); }
    @Override public void onMaxStreams(MaxStreamsFrame f) { sb.append("MAXSTREAMS "); }
    @Override public void onDataBlocked(DataBlockedFrame f) { sb.append("DBLOCKED "); }
    @Override public void onStreamDataBlocked(StreamDataBlockedFrame f) { sb.append("SDBLOCKED "); }
    @Override public void onNewConnectionId(NewConnectionIdFrame f) { sb.append("NCID "); }
    @Override public void onPathChallenge(PathChallengeFrame f) { sb.append("PCHAL "); }
    @Override public void onPathResponse(PathResponseFrame f) { sb.append("PRESP "); }
    @Override public void onConnectionClose(ConnectionCloseFrame f) { sb.append("CLOSE "); }
    @Override public void onHandshakeDone() { sb.append("HSDONE "); }
    @Override public boolean stopped() { return false; }
  }
}
