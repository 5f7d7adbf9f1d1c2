-- CreateTable
CREATE TABLE "slitherrush_stats" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "kills" INTEGER NOT NULL DEFAULT 0,
    "deaths" INTEGER NOT NULL DEFAULT 0,
    "best_score" INTEGER NOT NULL DEFAULT 0,
    "best_length" INTEGER NOT NULL DEFAULT 0,
    "time_played_seconds" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "last_played_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "slitherrush_stats_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "slitherrush_stats_user_id_key" ON "slitherrush_stats"("user_id");

-- CreateIndex
CREATE INDEX "slitherrush_stats_best_score_best_length_idx" ON "slitherrush_stats"("best_score" DESC, "best_length" DESC);

-- AddForeignKey
ALTER TABLE "slitherrush_stats" ADD CONSTRAINT "slitherrush_stats_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
