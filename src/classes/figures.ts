// A class's figures from what the game recorded (src/stores/classFigures.ts reads it): per student
// for the roster, per topic and per question for "what does my class get wrong". Pure: the records
// and who is online go in, the wire shapes come out. The topics are the question bank's
// (src/game/questionBank.ts): an answer is recorded by square, and the bank says which topic and
// question a square holds.
import { QUESTION_BANK, TOPICS, questionOn, type Topic } from "../game/questionBank.js";

export interface AnswerCounts {
  square: number;
  right: number;
  wrong: number;
}

export interface StudentInput {
  id: number;
  username: string;
  displayName: string | null;
  lockedAt: Date | null;
  mutedAt: Date | null;
  lastSeenAt: Date | null;
  progress: { completedLessons: number[]; totalBullets: number; timePlayed: number; updatedAt: Date } | null;
  answers: AnswerCounts[];
  boss: { battlesJoined: number; battlesWon: number; secondsInBattle: number; lastAt: Date | null };
  pvp: { won: number; lost: number; drawn: number; secondsInBattle: number; lastAt: Date | null };
  slitherrush: { bestScore: number; secondsPlayed: number; lastAt: Date | null } | null;
}

export interface TopicFigures {
  topic: Topic;
  right: number;
  wrong: number;
}

export interface StudentFigures {
  id: number;
  username: string;
  displayName: string | null;
  lessonsCompleted: number;
  squaresRight: number;
  squaresWrong: number;
  topics: TopicFigures[];
  bullets: number;
  bossAttempts: number;
  bossVictories: number;
  pvpWon: number;
  pvpLost: number;
  slitherrushBest: number;
  secondsPlayed: number;
  lastSeenAt: string | null;
  online: { mode: string; since: string } | null;
  locked: boolean;
  muted: boolean;
}

export interface QuestionFigures {
  square: number;
  topic: Topic;
  question: string;
  right: number;
  wrong: number;
}

/** Every topic of the bank, in the bank's order, with the answers on its squares. */
export function topicFigures(answers: readonly AnswerCounts[]): TopicFigures[] {
  const totals = new Map<Topic, TopicFigures>(TOPICS.map((topic) => [topic, { topic, right: 0, wrong: 0 }]));
  for (const a of answers) {
    const q = questionOn(a.square);
    if (!q) continue; // a square without a question (the data predates the bank's range): no topic to count under
    const t = totals.get(q.topic)!;
    t.right += a.right;
    t.wrong += a.wrong;
  }
  return [...totals.values()];
}

const latest = (...dates: Array<Date | null | undefined>): Date | null => {
  let best: Date | null = null;
  for (const d of dates) if (d && (!best || d > best)) best = d;
  return best;
};

/**
 * One student's row. Time played is the board's clock (reported by the client, bounded) plus the
 * server-measured time in boss battles, PvP battles and SlitherRush. Last seen is the latest of a
 * sign-in or request, a board save and a game's end; now, while online.
 */
export function studentFigures(s: StudentInput, online: { mode: string; since: number } | undefined, now: Date): StudentFigures {
  const right = s.answers.reduce((n, a) => n + a.right, 0);
  const wrong = s.answers.reduce((n, a) => n + a.wrong, 0);
  const seconds = (s.progress?.timePlayed ?? 0) + s.boss.secondsInBattle + s.pvp.secondsInBattle + (s.slitherrush?.secondsPlayed ?? 0);
  const lastSeen = online ? now : latest(s.lastSeenAt, s.progress?.updatedAt, s.boss.lastAt, s.pvp.lastAt, s.slitherrush?.lastAt);
  return {
    id: s.id,
    username: s.username,
    displayName: s.displayName,
    lessonsCompleted: new Set(s.progress?.completedLessons ?? []).size,
    squaresRight: right,
    squaresWrong: wrong,
    topics: topicFigures(s.answers),
    bullets: s.progress?.totalBullets ?? 0,
    bossAttempts: s.boss.battlesJoined,
    bossVictories: s.boss.battlesWon,
    pvpWon: s.pvp.won,
    pvpLost: s.pvp.lost,
    slitherrushBest: s.slitherrush?.bestScore ?? 0,
    secondsPlayed: Math.round(seconds),
    lastSeenAt: lastSeen ? lastSeen.toISOString() : null,
    online: online ? { mode: online.mode, since: new Date(online.since).toISOString() } : null,
    locked: s.lockedAt !== null,
    muted: s.mutedAt !== null,
  };
}

/**
 * What the class gets wrong: every topic and every question of the bank with the class's answers,
 * questions sorted by wrong answers (most first), then by square.
 */
export function classQuestionFigures(students: ReadonlyArray<{ answers: readonly AnswerCounts[] }>): { topics: TopicFigures[]; questions: QuestionFigures[] } {
  const bySquare = new Map<number, QuestionFigures>(QUESTION_BANK.map((q) => [q.square, { square: q.square, topic: q.topic, question: q.text, right: 0, wrong: 0 }]));
  const all: AnswerCounts[] = [];
  for (const s of students) {
    for (const a of s.answers) {
      all.push(a);
      const q = bySquare.get(a.square);
      if (!q) continue;
      q.right += a.right;
      q.wrong += a.wrong;
    }
  }
  const questions = [...bySquare.values()].sort((a, b) => b.wrong - a.wrong || a.square - b.square);
  return { topics: topicFigures(all), questions };
}

/** The roster CSV's columns, in order. */
export const ROSTER_CSV_HEADER = [
  "id",
  "username",
  "display_name",
  "lessons_completed",
  "squares_right",
  "squares_wrong",
  ...TOPICS.flatMap((t) => [`${t}_right`, `${t}_wrong`]),
  "bullets",
  "boss_attempts",
  "boss_victories",
  "pvp_won",
  "pvp_lost",
  "slitherrush_best",
  "seconds_played",
  "last_seen_at",
  "online_mode",
  "locked",
  "muted",
] as const;

export function rosterCsvRow(f: StudentFigures): Array<string | number | boolean | null> {
  return [
    f.id,
    f.username,
    f.displayName,
    f.lessonsCompleted,
    f.squaresRight,
    f.squaresWrong,
    ...f.topics.flatMap((t) => [t.right, t.wrong]),
    f.bullets,
    f.bossAttempts,
    f.bossVictories,
    f.pvpWon,
    f.pvpLost,
    f.slitherrushBest,
    f.secondsPlayed,
    f.lastSeenAt,
    f.online?.mode ?? null,
    f.locked,
    f.muted,
  ];
}
