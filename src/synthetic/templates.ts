import type { SyntheticArticle } from './articles.js';
import { esc } from './html.js';
import { seededRandom } from '../util/random.js';
import { sentence, words } from './prose.js';

/**
 * Page templates of the synthetic sites, each laid out like a different CMS: what Forest has to
 * see through. Template parts that change on every request (ads, "updated N minutes ago",
 * comment counts, related links) are drawn from `requestRandom`; the article itself never is.
 */

export interface PageContext {
  siteName: string;
  siteUrl: string;
  feedUrl: string;
  feedType: string;
  article: SyntheticArticle;
  /** Other articles of the site, in an order that changes on every request. */
  related: SyntheticArticle[];
  now: number;
  requestRandom: () => number;
  /** Declared in <meta charset>; the server encodes the page in it. */
  charset: string;
  /** The origin of the CDN every site takes its fonts from (server.ts), or null. */
  cdn: string | null;
}

export type Template = (page: PageContext) => string;

const ago = (page: PageContext) => Math.max(1, Math.round((page.now - page.article.publishedAt) / 60_000));
const ad = (page: PageContext) => `<div class="ad-slot"><span>Advertisement</span><a href="https://ads.invalid/${Math.floor(page.requestRandom() * 1e6)}">${esc(sentence(page.requestRandom))}</a></div>`;
const relatedLinks = (page: PageContext) =>
  page.related.map((item) => `<li><a href="${esc(page.siteUrl)}articles/${esc(item.slug)}">${esc(item.title)}</a></li>`).join('');
const body = (page: PageContext, paragraphTag = 'p') => {
  const { article } = page;
  const parts = article.paragraphs.map((text) => `<${paragraphTag}>${esc(text)}</${paragraphTag}>`);
  // The quote goes in first, so that removing the image moves nothing else.
  if (article.quote) parts.splice(2, 0, `<blockquote>${esc(article.quote)}</blockquote>`);
  if (article.image) parts.splice(1, 0, `<figure><img src="/images/${esc(article.image.file)}" alt=""><figcaption>${esc(article.image.caption)}</figcaption></figure>`);
  if (article.list) parts.push(`<ul>${article.list.map((item) => `<li>${esc(item)}</li>`).join('')}</ul>`);
  return parts.join('\n');
};
const head = (page: PageContext) =>
  `<meta charset="${page.charset}"><title>${esc(page.article.title)} | ${esc(page.siteName)}</title>
<link rel="canonical" href="${esc(page.siteUrl)}articles/${esc(page.article.slug)}">
<link rel="alternate" type="${page.feedType}" href="${esc(page.feedUrl)}">
<meta property="og:title" content="${esc(page.article.title)}">
<meta name="description" content="${esc(page.article.summary)}">
<link rel="stylesheet" href="/assets/site.css"><link rel="icon" href="/assets/logo.png">${page.cdn ? `<link rel="stylesheet" href="${esc(page.cdn)}/fonts.css">` : ''}`;

/** A modern newspaper: HTML5 article, sidebar, comments. */
export const newspaper: Template = (page) => `<!DOCTYPE html>
<html lang="en"><head>${head(page)}
<style>body{font-family:serif}</style><script>window.analytics={id:${Math.floor(page.requestRandom() * 1e9)}}</script></head>
<body><header class="masthead"><a class="logo" href="/">${esc(page.siteName)}</a>
<nav class="main-nav"><a href="/">Home</a> <a href="/local">Local</a> <a href="/business">Business</a> <a href="/sport">Sport</a> <a href="/culture">Culture</a></nav></header>
${ad(page)}
<main class="layout"><article class="story">
<h1 class="headline">${esc(page.article.title)}</h1>
<p class="byline">By <span class="author">${esc(page.article.author)}</span> · <time datetime="${new Date(page.article.publishedAt).toISOString()}">${new Date(page.article.publishedAt).toUTCString()}</time> · <span class="updated">Updated ${ago(page)} minutes ago</span></p>
<div class="story-body">
${body(page)}
<aside class="inline-related"><strong>Read more:</strong> <a href="${esc(page.siteUrl)}articles/${esc(page.related[0]?.slug ?? '')}">${esc(page.related[0]?.title ?? '')}</a></aside>
</div>
<div class="share-bar"><a href="#">Share</a> <a href="#">Tweet</a> <a href="#">Email</a></div>
</article>
<aside class="sidebar"><h2>Most read</h2><ol>${relatedLinks(page)}</ol>${ad(page)}</aside></main>
<section class="comments"><h2>${Math.floor(page.requestRandom() * 300)} comments</h2><p class="comment">${esc(sentence(page.requestRandom))}</p></section>
<footer class="site-footer"><p>© ${esc(page.siteName)}. All rights reserved.</p><a href="/privacy">Privacy</a></footer>
</body></html>`;

/** A tech magazine: div soup with utility classes. */
export const magazine: Template = (page) => `<!DOCTYPE html>
<html><head>${head(page)}</head>
<body><div id="wrapper"><div class="top-bar"><div class="brand">${esc(page.siteName)}</div><ul class="menu"><li><a href="/">News</a></li><li><a href="/reviews">Reviews</a></li><li><a href="/podcast">Podcast</a></li></ul></div>
<div class="promo">${ad(page)}</div>
<div class="content-area"><div class="post-wrapper-${page.article.index % 7}">
<div class="post-header"><h2 class="post-title">${esc(page.article.title)}</h2>
<div class="post-meta">Posted by ${esc(page.article.author)} on ${new Date(page.article.publishedAt).toISOString().slice(0, 10)} | ${Math.floor(page.requestRandom() * 90)} comments</div></div>
<div class="post-content entry">
${body(page)}
</div>
<div class="related-posts"><h3>You might also like</h3><ul>${relatedLinks(page)}</ul></div>
</div>
<div class="widget-area"><div class="widget"><h4>Newsletter</h4><form><input name="email"><button>Sign up</button></form></div><div class="widget">${words(page.requestRandom, 12).join(' ')}</div></div></div>
<div class="footer">${esc(page.siteName)} — ${words(seededRandom(7), 8).join(' ')}</div></div></body></html>`;

/** An old blog laid out with tables, in a legacy charset. */
export const oldBlog: Template = (page) => `<html><head>${head(page)}</head>
<body bgcolor="#ffffff"><table width="100%" cellpadding="4"><tr><td colspan="2" class="banner"><font size="5">${esc(page.siteName)}</font> — field notes from the valley</td></tr>
<tr><td width="180" valign="top" class="left-col"><b>Archives</b><br>${page.related.map((item) => `<a href="/articles/${esc(item.slug)}">${esc(item.title)}</a><br>`).join('')}<br>${ad(page)}</td>
<td valign="top" class="main-col"><div class="entry"><h3>${esc(page.article.title)}</h3>
<div class="entry-text">
${body(page)}
</div>
<p class="posted">Posted by ${esc(page.article.author)} at ${new Date(page.article.publishedAt).toUTCString()} | <a href="#c">Comments (${Math.floor(page.requestRandom() * 20)})</a></p></div></td></tr>
<tr><td colspan="2" class="footer"><small>Powered by an old blog engine. Café menu: crème brûlée, naïve façade.</small></td></tr></table></body></html>`;
