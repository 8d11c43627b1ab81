package dev.tern.transport.udp.congestion;

/** Creates the congestion controller a connection asked for. */
public final class CongestionControllers {
  private CongestionControllers() {}

  /**
   * A new controller of algorithm {@code algorithm} for datagrams of up to {@code maxDatagramSize}
   * bytes; {@code seed} makes randomised choices (BBR's probe spacing) reproducible.
   *
   * @throws NullPointerException if {@code algorithm} is null
   * @throws IllegalArgumentException if {@code maxDatagramSize} is outside 1200..65527
   */
  public static CongestionController create(CongestionControl algorithm, int maxDatagramSize,
      long seed) {
    if (algorithm == null) {
      throw new NullPointerException("algorithm");
    }
    switch (algorithm) {
      case NEW_RENO:
        return new NewReno(maxDatagramSize);
      case CUBIC:
        return new Cubic(maxDatagramSize);
      case BBR:
        return new Bbr(maxDatagramSize, seed);
      default:
        throw new IllegalArgumentException("unknown congestion control " + algorithm);
    }
  }

  /** The algorithm a connection uses when its configuration names none. */
  public static CongestionControl defaultAlgorithm() {
    return CongestionControl.BBR;
  }
}
