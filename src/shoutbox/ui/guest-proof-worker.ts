import { solveChallenge } from 'altcha-lib/v1'

/*
 * The guest's proof of work, off the page's thread: given a challenge from
 * GET /api/shoutbox/guest-challenge, finds its number (SHA-256 tries, in the browser's own
 * crypto) and answers it, or null when there is none below `maxnumber`. Nothing to see,
 * nothing sent anywhere: the page posts the answer with the shout.
 */

interface Challenge { algorithm: string, challenge: string, maxnumber: number, salt: string }

self.addEventListener('message', event => {
  const { algorithm, challenge, maxnumber, salt } = (event as MessageEvent<Challenge>).data
  void solveChallenge(challenge, salt, algorithm, maxnumber).promise
    .then(solution => { self.postMessage(solution === null ? null : { number: solution.number, took: solution.took }) })
    .catch(() => { self.postMessage(null) })
})
