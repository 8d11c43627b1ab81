package dev.tern.transport.udp.rpc;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.transport.udp.connection.Connection;
import dev.tern.transport.udp.connection.ConnectionStats;

/** Fills {@link ConnectionInfo} from a protocol connection; on its loop thread. */
final class Infos {
  private Infos() {}

  static ConnectionInfo.Builder fill(ConnectionInfo.Builder b, Connection c) {
    ConnectionStats st = c.stats();
    long srtt = c.rtt().smoothedRttNs();
    long min = c.rtt().minRttNs();
    return b.smoothedRttNanos(srtt)
        .minRttNanos(min == Long.MAX_VALUE ? -1 : min)
        .congestionWindowBytes(c.congestionController().congestionWindowBytes())
        .bytesSent(st.bytesSent)
        .bytesReceived(st.bytesReceived)
        .packetsSent(st.packetsSent)
        .packetsLost(st.packetsLost)
        .packetsRetransmitted(st.packetsRetransmitted)
        .bytesInFlight(c.bytesInFlight())
        // A client counts its own moves (RFC 9000 §9.2), a server the client's (§9.3).
        .pathChanges(st.pathChanges + st.localAddressChanges)
        .earlyDataAccepted(c.earlyDataAccepted());
  }
}
