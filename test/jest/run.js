// `npm run test:<project> [-- jest arguments]`: jest with one project selected. The selection goes last
// because --selectProjects takes a list: before a file path given after `--` it would read the path as
// another project's name.
import { run } from 'jest';

const [project, ...args] = process.argv.slice(2);
await run([...args, '--selectProjects', project]);
