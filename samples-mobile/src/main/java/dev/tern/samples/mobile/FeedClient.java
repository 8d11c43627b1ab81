package dev.tern.samples.mobile;

import dev.tern.rpc.ConnectionInfo;
import dev.tern.rpc.TernChannelBuilder;
import dev.tern.rpc.TernChannels;
import dev.tern.rpc.TernTls;
import dev.tern.rpc.TransportMemory;
import dev.tern.samples.mobile.feed.FeedGrpc;
import dev.tern.samples.mobile.feed.FollowRequest;
import dev.tern.samples.mobile.feed.HoldRequest;
import dev.tern.samples.mobile.feed.Item;
import dev.tern.samples.mobile.feed.Page;
import dev.tern.samples.mobile.feed.PageRequest;
import dev.tern.rpc.spi.SessionStore;
import dev.tern.rpc.spi.SessionStores;
import dev.tern.rpc.spi.TransportOptions;
import dev.tern.transport.udp.rpc.UdpTransportOptions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.File;
import java.nio.file.Paths;
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
 * <p>Usage: {@code FeedClient HOST PORT TRUSTED.pem UDP-PIN [--crypto auto|jdk|bc]
 * [--authority NAME] [--state FILE] [--idle-seconds N] [--hold-seconds N] [--keepalive-seconds N]
 * MODE...}, the pin in base64 as the server prints it, or {@code -} for none (the channel races
 * {@code udp} once the server has advertised its key over TLS, docs/transport-choice.md). Modes:
 * {@code udp}, {@code okhttp} (that transport only) and {@code race} (both raced) read a page and
 * follow 50 items; {@code app} races them as {@code race} does and runs the feed screen of {@link
 * FeedApp} (the API call, images, a refresh, images cancelled). {@code --authority} names the host
 * the server's certificate is for, where it is not HOST; {@code --state} keeps what the channel learns
 * (the transport that worked, broken marks, 0-RTT tickets) in a file across runs, as an app keeps
 * it across restarts. {@code --crypto bc} runs the {@code udp} transport on BouncyCastle, as it runs
 * on Android. After reading the feed, {@code --idle-seconds} leaves the channel open with no call
 * (an app in the background), and {@code --hold-seconds} makes one quiet call the server answers
 * that much later, with a keep-alive PING every {@code --keepalive-seconds} while it is open. Each
 * mode prints a line per step; the exit status is 1 if any failed.
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
    return builder(host, port, trust, udpPin, mode, crypto).build();
  }

  private static TernChannelBuilder builder(String host, int port, TernTls trust, byte[] udpPin, String mode,
      String crypto) {
    TernChannelBuilder b = TernChannelBuilder.forAddress(host, port).tls(trust)
        .transportOption(UdpTransportOptions.CRYPTO_PROVIDER, crypto);
    if (udpPin != null) {
      b.transportOption(UdpTransportOptions.PINNED_SERVER_KEY, udpPin);
    }
    switch (mode) {
      case "udp":
      case "okhttp":
        b.transports(mode);
        break;
      case "race":
      case "app":
        break; // the default preference: udp raced against the TCP transport on the class path
      default:
        throw new IllegalArgumentException("mode must be udp, okhttp, race or app; got " + mode);
    }
    return b;
  }

  /**
   * As {@link #channel(String, int, TernTls, byte[], String, String)}, with a keep-alive PING
   * every {@code keepAliveSeconds} while a call is open (none without one: the radio rests).
   */
  public static ManagedChannel channel(String host, int port, TernTls trust, byte[] udpPin, String mode,
      String crypto, int keepAliveSeconds) {
    return builder(host, port, trust, udpPin, mode, crypto).keepAliveTime(keepAliveSeconds, TimeUnit.SECONDS).build();
  }

  /**
   * What an app keeps across its restarts, in {@code state}: which transport worked and which is
   * broken for the server, what the server advertised (the channel's memory), and the udp
   * transport's resumption tickets (0-RTT).
   */
  static TernChannelBuilder keepState(TernChannelBuilder b, SessionStore state) {
    return b.transportMemory(TransportMemory.builder().sessionStore(state).build())
        .transportOption(TransportOptions.SESSION_STORE, state);
  }

  /** The channel of {@code mode} ({@code app}: the default race), for an app's screens. */
  static TernChannelBuilder builderFor(String host, int port, TernTls trust, byte[] udpPin, String mode) {
    return builder(host, port, trust, udpPin, mode, "auto");
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
    /** Time from the channel's creation to the first call's reply (the page), in milliseconds. */
    public final long firstCallMillis;
    /** Why the channel chose its transport ({@link TernChannels#selectionReason}). */
    public final String why;

    Result(String transport, int pageItems, int followed, long millis, long firstCallMillis, String why) {
      this.transport = transport;
      this.pageItems = pageItems;
      this.followed = followed;
      this.millis = millis;
      this.firstCallMillis = firstCallMillis;
      this.why = why;
    }
  }

  /** Reads a page of {@code pageSize} and follows {@code follow} items on {@code channel}. */
  public static Result readFeed(ManagedChannel channel, int pageSize, int follow) {
    return readFeed(channel, pageSize, follow, System.nanoTime());
  }

  /** As {@link #readFeed(ManagedChannel, int, int)}, times counted from {@code start} (nanoTime). */
  static Result readFeed(ManagedChannel channel, int pageSize, int follow, long start) {
    FeedGrpc.FeedBlockingStub feed = FeedGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    Page page = feed.latest(PageRequest.newBuilder().setSize(pageSize).build());
    long firstCallNanos = System.nanoTime() - start;
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
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), TimeUnit.NANOSECONDS.toMillis(firstCallNanos),
        TernChannels.selectionReason(channel));
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
      System.err.println("usage: FeedClient HOST PORT TRUSTED.pem UDP-PIN [--crypto auto|jdk|bc] [--authority NAME]"
          + " [--state FILE] [--idle-seconds N] [--hold-seconds N] [--keepalive-seconds N] udp|okhttp|race|app...");
      System.exit(2);
    }
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    TernTls trust = TernTls.newBuilder().trustManager(new File(args[2])).build();
    byte[] pin = args[3].equals("-") ? null : Base64.getDecoder().decode(args[3]);
    String crypto = "auto";
    String authority = null;
    SessionStore state = null;
    int idleSeconds = 0;
    int holdSeconds = 0;
    int keepAliveSeconds = 0;
    List<String> modes = new ArrayList<>();
    for (int i = 4; i < args.length; i++) {
      if (args[i].equals("--crypto") && i + 1 < args.length) {
        crypto = args[++i];
      } else if (args[i].equals("--state") && i + 1 < args.length) {
        state = SessionStores.file(Paths.get(args[++i]), 256);
      } else if (args[i].equals("--authority") && i + 1 < args.length) {
        authority = args[++i];
      } else if (args[i].equals("--idle-seconds") && i + 1 < args.length) {
        idleSeconds = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--hold-seconds") && i + 1 < args.length) {
        holdSeconds = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--keepalive-seconds") && i + 1 < args.length) {
        keepAliveSeconds = Integer.parseInt(args[++i]);
      } else {
        modes.add(args[i]);
      }
    }
    int failed = 0;
    for (String mode : modes) {
      TernChannelBuilder b = builder(host, port, trust, pin, mode, crypto);
      if (authority != null) {
        b.overrideAuthority(authority); // the name the server's certificate carries
      }
      if (keepAliveSeconds > 0) {
        b.keepAliveTime(keepAliveSeconds, TimeUnit.SECONDS);
      }
      if (state != null) {
        keepState(b, state);
      }
      long start = System.nanoTime();
      ManagedChannel channel = b.build();
      if (mode.equals("app")) {
        try {
          failed += new FeedApp(channel, System.out, mode, start).run();
          ConnectionInfo info = TernChannels.connectionInfo(channel);
          System.out.println(mode + ": early data accepted: " + (info != null && info.earlyDataAccepted()));
        } finally {
          channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        continue;
      }
      try {
        Result r = readFeed(channel, 20, 50, start);
        System.out.println(mode + ": ok over " + r.transport + ": page of " + r.pageItems + ", followed "
            + r.followed + " items in " + r.millis + " ms (first call " + r.firstCallMillis + " ms)");
        System.out.println(mode + ": why " + r.why);
        ConnectionInfo info = TernChannels.connectionInfo(channel);
        System.out.println(mode + ": early data accepted: " + (info != null && info.earlyDataAccepted()));
        if (idleSeconds > 0) {
          // The app in the background: the channel open, no call. Times are System.nanoTime(),
          // which a packet log on the same machine can be lined up with.
          long from = System.nanoTime();
          Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
          System.out.println(mode + ": idle from " + from + " to " + System.nanoTime() + " ns");
        }
        if (holdSeconds > 0) {
          long from = System.nanoTime();
          FeedGrpc.newBlockingStub(channel).withDeadlineAfter(holdSeconds + 30L, TimeUnit.SECONDS)
              .hold(HoldRequest.newBuilder().setMillis(holdSeconds * 1000).build());
          System.out.println(mode + ": hold from " + from + " to " + System.nanoTime() + " ns");
        }
      } catch (StatusRuntimeException | IllegalStateException e) {
        failed++;
        Throwable cause = e.getCause();
        System.out.println(mode + ": failed: " + e.getMessage() + (cause == null ? "" : " (" + cause + ")"));
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
    System.exit(failed == 0 ? 0 : 1);
  }
}
