/** What the demo graph's `friends` query prints: the person and their friends, then the edges between them. */
export type FriendsRow = { person: string; friends: string[] } | { '@@edges': unknown[] };
