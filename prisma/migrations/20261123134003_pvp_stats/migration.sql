-- CreateTable
CREATE TABLE "pvp_results" (
    "id" SERIAL NOT NULL,
    "match_id" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "room_id" TEXT NOT NULL,
    "player_number" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "shots" INTEGER NOT NULL,
    "hits" INTEGER NOT NULL,
    "lives_left" INTEGER NOT NULL,
    "opponent_name" TEXT NOT NULL,
    "opponent_user_id" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "ended_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "pvp_results_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "pvp_results_user_id_ended_at_idx" ON "pvp_results"("user_id", "ended_at");

-- CreateIndex
CREATE UNIQUE INDEX "pvp_results_match_id_user_id_key" ON "pvp_results"("match_id", "user_id");

-- AddForeignKey
ALTER TABLE "pvp_results" ADD CONSTRAINT "pvp_results_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
