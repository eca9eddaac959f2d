// LIST pages a client was sent, kept unread: reading every item's identity of every page (a 20,000-pod LIST is
// 130 MB) was half of the endpoint's CPU for it, and most pages are never asked about (issue 43). A client session
// reads a resource's held pages when something asks what the client holds of it (a write's base, a stale-write check,
// a write's likely triggers). The pages are the chunks the response was written in, referenced, not copied: reading
// them leaves views into the same chunks. This ledger bounds what all the endpoint's clients hold unread: past its
// bound, the oldest pages are read (and what they hold then is only what is still the newest version).

/**
 * The most bytes of unread pages the endpoint holds, all clients together. Reading a page frees nothing while its
 * items are still the client's newest versions (they are views of its chunks): what reading saves is the chunks of
 * versions replaced since. So the bound is above one large LIST (20,000 pods are 130 MB), which would otherwise be
 * half read as it arrives. A whole relist replaces its collection's unread pages (client-session.ts): a client that
 * relists again and again does not add up.
 */
export const HELD_PAGE_BYTES_MAX = 256 * 1024 * 1024;

/** One list page held unread. */
export interface HeldPage {
  readonly bytes: number;
  /** Reads the page now, in its place among the client's pages (its session applies what it held). */
  readonly readNow: () => void;
}

export class HeldPages {
  /** In arrival order: the first is the oldest (a Set keeps insertion order, and forgets a read page in O(1)). */
  private readonly pages = new Set<HeldPage>();
  private held = 0;

  constructor(readonly maxBytes = HELD_PAGE_BYTES_MAX) {}

  get bytes(): number {
    return this.held;
  }

  /** A page is held; the oldest ones are read while the whole is past the bound (this one too, when it alone is). */
  hold(page: HeldPage): void {
    this.pages.add(page);
    this.held += page.bytes;
    while (this.held > this.maxBytes) {
      const oldest = this.pages.values().next().value;
      if (oldest === undefined) break;
      oldest.readNow();
      // readNow releases it; a reader that did not is forgotten all the same, so the loop ends.
      this.release(oldest);
    }
  }

  /** The page was read (or dropped): it no longer counts. */
  release(page: HeldPage): void {
    if (this.pages.delete(page)) this.held -= page.bytes;
  }
}
