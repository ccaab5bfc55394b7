import { Suspense } from 'react';
import { Board, BoardSkeleton } from '@/components/board/Board';

/** The board (a client component: filters live in the URL, data comes from /api/board). */
export default function BoardPage() {
  return (
    <Suspense fallback={<BoardSkeleton />}>
      <Board />
    </Suspense>
  );
}
