import { readFileSync, writeFileSync } from 'node:fs'

/**
 * A flame graph (an HTML page holding an SVG) of a V8 CPU profile, as `node --cpu-prof` writes it: each frame as wide as
 * the time spent in it and below it, callers under callees' roots, idle time and the
 * profiler's own frames left out, so widths are shares of the time the process was busy.
 *
 *   node packages/app/dist/bench/flame-graph.js <profile.cpuprofile> <out.html> [title]
 *
 * Written here because the flame graph tools at hand read other formats (perf, V8 logs) or need
 * a viewer; this one is a static page any browser shows as it is (HTML, so the SVG needs no
 * namespace declaration).
 */

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: readonly number[]
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

interface Frame {
  readonly name: string
  total: number
  readonly children: Map<string, Frame>
}

const SKIP = new Set(['(idle)', '(program)', '(root)'])

const nameOf = (f: CallFrame): string => {
  const where = f.url
    .replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '')
    .replace(/^.*\/packages\//, '')
    .replace(/^file:\/\//, '')
  return `${f.functionName || '(anonymous)'}${where ? ` ${where}:${f.lineNumber + 1}` : ''}`
}

const foldProfile = (p: CpuProfile): Frame => {
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const selfTime = new Map<number, number>()
  p.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)))
  const root: Frame = { name: 'all (busy)', total: 0, children: new Map() }
  for (const [id, t] of selfTime) {
    const stack: string[] = []
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at)
      if (node !== undefined && !SKIP.has(node.callFrame.functionName)) stack.push(nameOf(node.callFrame))
    }
    if (stack.length === 0) continue
    root.total += t
    let frame = root
    for (const name of stack.reverse()) {
      const next = frame.children.get(name) ?? { name, total: 0, children: new Map<string, Frame>() }
      frame.children.set(name, next)
      next.total += t
      frame = next
    }
  }
  return root
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const WIDTH = 1600
const ROW = 17

const render = (root: Frame, title: string): string => {
  const rects: string[] = []
  let depth = 0
  const walk = (f: Frame, x: number, level: number) => {
    const w = (f.total / root.total) * WIDTH
    if (w < 0.3) return
    depth = Math.max(depth, level)
    const share = ((100 * f.total) / root.total).toFixed(1)
    // Ours orange, Node's own yellow, libraries blue.
    const hue = f.name.includes('/dist/') ? 20 : / node:|^\(|^[^ ]+$/.test(f.name) ? 50 : 200
    const label = w > 40 ? escape(f.name).slice(0, Math.floor(w / 7)) : ''
    rects.push(
      `<g><title>${escape(f.name)} (${share}%)</title><rect x="${x.toFixed(1)}" y="LEVEL${level}" width="${w.toFixed(1)}" height="${ROW - 1}" ` +
        `fill="hsl(${hue},70%,${60 + (level % 3) * 6}%)"/><text x="${(x + 3).toFixed(1)}" y="LEVEL${level}T">${label}</text></g>`,
    )
    let at = x
    for (const c of [...f.children.values()].sort((a, b) => b.total - a.total)) {
      walk(c, at, level + 1)
      at += (c.total / root.total) * WIDTH
    }
  }
  walk(root, 0, 0)
  const height = (depth + 1) * ROW + 30
  // Flame: the root at the bottom.
  const body = rects
    .join('\n')
    .replace(/LEVEL(\d+)T/g, (_, l: string) => String(height - (Number(l) + 1) * ROW + 12))
    .replace(/LEVEL(\d+)/g, (_, l: string) => String(height - (Number(l) + 1) * ROW))
  return (
    `<!doctype html>\n<meta charset="utf-8">\n<title>${escape(title)}</title>\n` +
    `<svg width="${WIDTH}" height="${height}" font-family="monospace" font-size="11">\n` +
    `<text x="4" y="14" font-size="13">${escape(title)}</text>\n${body}\n</svg>\n`
  )
}

const [input, output, title] = process.argv.slice(2)
if (input === undefined || output === undefined) {
  console.error('usage: flame-graph <profile.cpuprofile> <out.html> [title]')
  process.exit(2)
}
writeFileSync(output, render(foldProfile(JSON.parse(readFileSync(input, 'utf8')) as CpuProfile), title ?? input))
console.log(`wrote ${output}`)
