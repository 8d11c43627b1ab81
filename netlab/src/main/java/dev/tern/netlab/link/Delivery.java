package dev.tern.netlab.link;

/**
 * The verdict of one {@link Link#send}: a reusable, mutable holder so that the per-packet path
 * allocates nothing. Copy index 0 is the original, index 1 a duplicate (when {@link #copies()}
 * is 2).
 */
public final class Delivery {
  /** Delivery times of the copies, valid for indices below {@link #copies()}. */
  public final long[] deliverAtNs = new long[2];
  /** Whether each copy is corrupted (the carrier should flip a bit), below {@link #copies()}. */
  public final boolean[] corrupted = new boolean[2];

  private int copies;
  private DropReason dropReason = DropReason.NONE;
  private boolean reordered;

  /** Creates an empty verdict (no copies). */
  public Delivery() {}

  /** Number of copies delivered: 0 when dropped, 1, or 2 when duplicated. */
  public int copies() {
    return copies;
  }

  /** Why the packet was dropped, or {@link DropReason#NONE} when delivered. */
  public DropReason dropReason() {
    return dropReason;
  }

  /** Delivery time of copy {@code i} (0 or 1). */
  public long deliverAtNs(int i) {
    return deliverAtNs[i];
  }

  /** Whether copy {@code i} is corrupted. */
  public boolean corrupted(int i) {
    return corrupted[i];
  }

  /** Whether the packet was held back to be reordered behind packets sent after it. */
  public boolean reordered() {
    return reordered;
  }

  void reset() {
    copies = 0;
    dropReason = DropReason.NONE;
    reordered = false;
    corrupted[0] = false;
    corrupted[1] = false;
  }

  void drop(DropReason reason) {
    copies = 0;
    dropReason = reason;
  }

  void deliver(int index, long atNs, boolean corrupt) {
    deliverAtNs[index] = atNs;
    corrupted[index] = corrupt;
    copies = index + 1;
  }

  void markReordered() {
    reordered = true;
  }

  @Override
  public String toString() {
    if (copies == 0) {
      return "Delivery{dropped " + dropReason + "}";
    }
    return "Delivery{copies=" + copies + ", at=" + deliverAtNs[0]
        + (copies > 1 ? "," + deliverAtNs[1] : "") + (reordered ? ", reordered" : "") + "}";
  }
}
