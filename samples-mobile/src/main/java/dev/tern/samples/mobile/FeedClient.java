package dev.tern.samples.mobile;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernTls;
import dev.tern.samples.mobile.feed.FeedGrpc;
import dev.tern.samples.mobile.feed.FollowRequest;
import dev.tern.samples.mobile.feed.Item;
import dev.tern.samples.mobile.feed.Page;
import dev.tern.samples.mobile.feed.PageRequest;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.File;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A phone app's client of the feed, on the mobile set alone: {@code rpc-api}, the {@code udp}
 * transport, the {@code okhttp} transport (gRPC over HTTP/2 on TCP, no Netty) and protobuf-lite
 * stubs. It reads the newest page and follows the feed for a few items, over each way of
 * connecting it is asked for:
 *
 * <ul>
 *   <li>{@code udp}: Tern's own protocol only;
 *   <li>{@code okhttp}: TCP only;
 *   <li>{@code race}: the channel's default, {@code udp} raced against {@code okhttp} (the TCP
 *       fallback for networks that block UDP), the first ready kept.
 * </ul>
 *
 * <p>Usage: {@code FeedClient HOST PORT TRUSTED.pem UDP-PIN [--crypto auto|jdk|bc] MODE...}, the
 * pin in base64 as the server prints it. {@code --crypto bc} runs the {@code udp} transport on
 * BouncyCastle, as it runs on Android. Each mode prints one line; the exit status is 1 if any
 * failed.
 */
public final class FeedClient {
  private FeedClient() {}

  /**
   * A channel to the feed.
   *
   * @param mode {@code udp}, {@code okhttp} or {@code race}
   * @param crypto the {@code udp} transport's crypto provider ({@code auto}, {@code jdk}, {@code bc})
   * @return the channel; shut it down when done
   */
  public static ManagedChannel channel(String host, int port, TernTls trust, byte[] udpPin, String mode,
      String crypto) {
    TernChannelBuilder b = TernChannelBuilder.forAddress(host, port).tls(trust)
        .transportOption(UdpTransportOptions.PINNED_SERVER_KEY, udpPin)
        .transportOption(UdpTransportOptions.CRYPTO_PROVIDER, crypto);
    switch (mode) {
      case "udp":
      case "okhttp":
        b.transports(mode);
        break;
      case "race":
        break; // the default preference: udp raced against the TCP transport on the class path
      default:
        throw new IllegalArgumentException("mode must be udp, okhttp or race; got " + mode);
    }
    return b.build();
  }

  /** What one mode did. */
  public static final class Result {
    /** The transport that carried the calls. */
    public final String transport;
    /** Items on the page read. */
    public final int pageItems;
    /** Items followed. */
    public final int followed;
    /** Time from the channel's creation to the last item, in milliseconds. */
    public final long millis;

    Result(String transport, int pageItems, int followed, long millis) {
      this.transport = transport;
      this.pageItems = pageItems;
      this.followed = followed;
      this.millis = millis;
    }
  }

  /** Reads a page of {@code pageSize} and follows {@code follow} items on {@code channel}. */
  public static Result readFeed(ManagedChannel channel, int pageSize, int follow) {
    long start = System.nanoTime();
    FeedGrpc.FeedBlockingStub feed = FeedGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    Page page = feed.latest(PageRequest.newBuilder().setSize(pageSize).build());
    int followed = 0;
    Iterator<Item> items = feed.follow(FollowRequest.newBuilder().setCount(follow).build());
    while (items.hasNext()) {
      Item item = items.next();
      if (item.getId() != 1_001 + followed) {
        throw new IllegalStateException("item " + item.getId() + " where " + (1_001 + followed) + " was due");
      }
      followed++;
    }
    ConnectionInfo info = TernChannels.connectionInfo(channel);
    return new Result(info == null ? "?" : info.transport(), page.getItemsCount(), followed,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  /**
   * Runs the modes asked for.
   *
   * @param args the host, the port, the trusted certificates (PEM), the {@code udp} pin (base64),
   *     optionally {@code --crypto NAME}, and one or more modes
   * @throws Exception if the arguments are wrong
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: FeedClient HOST PORT TRUSTED.pem UDP-PIN [--crypto auto|jdk|bc] udp|okhttp|race...");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    TernTls trust = TernTls.newBuilder().trustManager(new File(args[2])).build();
    byte[] pin = Base64.getDecoder().decode(args[3]);
    String crypto = "auto";
    List<String> modes = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      if (args[i].equals("--crypto") && i + 1 < args.length) {
        crypto = args[++i];
      } else {
        modes.add(args[i]);
      }
    }
    int failed = 0;
    for (String mode : modes) {
      ManagedChannel channel = channel(host, port, trust, pin, mode, crypto);
      try {
        Result r = readFeed(channel, 20, 50);
        System.out.println(mode + ": ok over " + r.transport + ": page of " + r.pageItems + ", followed "
            + r.followed + " items in " + r.millis + " ms");
      } catch (StatusRuntimeException | IllegalStateException e) {
        failed++;
        System.out.println(mode + ": failed: " + e.getMessage());
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
    System.exit(failed == 0 ? 0 : 1);
  }
}
