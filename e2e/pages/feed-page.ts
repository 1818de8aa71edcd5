import { expect, type Locator, type Page } from "@playwright/test";

export interface FeedWindow {
  /** Items held by the list (it is virtualised: only some are in the DOM). */
  count: number;
  firstSeq: number;
  lastSeq: number;
}

export class FeedPage {
  constructor(private readonly page: Page) {}

  async goto(slug: string, query = "") {
    await this.page.goto(`/w/${slug}/feed${query ? `?${query}` : ""}`);
    await expect(this.page.getByRole("heading", { name: "World feed" })).toBeVisible();
  }

  list() {
    return this.page.getByRole("feed", { name: "World feed" });
  }

  /** Waits until the live stream is attached. */
  async waitLive() {
    // Scoped to the feed: while the page streams in, a copy of it may sit in a hidden chunk for a moment.
    await expect(this.page.getByRole("region", { name: "Feed" }).getByTestId("feed-status")).toHaveAttribute("data-status", "live");
  }

  /** A feed item by what it says, e.g. /^@atlas → @scout: hi/. */
  item(name: RegExp | string): Locator {
    return this.list().getByRole("article", { name });
  }

  itemLink(item: Locator) {
    return item.getByTestId("feed-item-link");
  }

  async seqOf(item: Locator): Promise<number> {
    return Number(await item.getAttribute("data-seq"));
  }

  async window(): Promise<FeedWindow> {
    const counter = this.page.getByTestId("feed-count");
    const [count, firstSeq, lastSeq] = await Promise.all(["data-count", "data-first-seq", "data-last-seq"].map((a) => counter.getAttribute(a)));
    return { count: Number(count), firstSeq: Number(firstSeq), lastSeq: Number(lastSeq) };
  }

  /** The seqs the rows in the DOM stand for, ascending: each row's own, and the start of a run folded into its end. */
  async coveredSeqs(): Promise<number[]> {
    const seqs = await this.list()
      .locator("[data-seq]")
      .evaluateAll((rows) => rows.flatMap((r) => [Number((r as HTMLElement).dataset.seq), ...((r as HTMLElement).dataset.foldedSeq ? [Number((r as HTMLElement).dataset.foldedSeq)] : [])]));
    return seqs.sort((a, b) => a - b);
  }

  /** The seqs of the rows in the DOM, top to bottom. */
  async renderedSeqs(): Promise<number[]> {
    return this.list().locator("[data-seq]").evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.seq)));
  }

  /** The seqs of the rows actually on screen in the list's scroll area. */
  async visibleSeqs(): Promise<number[]> {
    return this.list().evaluate((scroller) => {
      const box = scroller.getBoundingClientRect();
      return [...scroller.querySelectorAll<HTMLElement>("[data-seq]")]
        .filter((row) => {
          const r = row.getBoundingClientRect();
          return r.bottom > box.top + 1 && r.top < box.bottom - 1;
        })
        .map((row) => Number(row.dataset.seq));
    });
  }

  /** Pauses, and returns the newest item's seq the list held at that moment (what it counts new items from). */
  async pause(): Promise<number> {
    await this.page.getByRole("button", { name: "❚❚ Pause" }).click();
    await expect(this.list()).toHaveAttribute("data-paused-after", /^\d+$/);
    return Number(await this.list().getAttribute("data-paused-after"));
  }

  async resume() {
    await this.page.getByRole("button", { name: "▶ Resume live" }).click();
  }

  unseen() {
    return this.page.getByTestId("feed-unseen");
  }

  matrix() {
    return this.page.getByTestId("talk-matrix");
  }

  matrixCell(from: string, to: string) {
    return this.matrix().getByTestId(`matrix-${from}-${to}`);
  }

  async matrixRange(label: "24 h" | "7 d" | "30 d") {
    await this.matrix().getByRole("button", { name: label }).click();
  }

  kindToggle(label: string) {
    return this.page.getByRole("group", { name: "Filters" }).getByRole("button", { name: label, exact: true });
  }
}
